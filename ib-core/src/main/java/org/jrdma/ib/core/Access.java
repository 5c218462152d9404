package org.jrdma.ib.core;

/** {@code enum ib_access_flags}: access rights of an MR, MW or QP, as an int bit mask. */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;
    /** Every flag this API knows. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND | ZERO_BASED;
    /** The flags a QP's {@code qp_access_flags} may carry. */
    public static final int QP_ALL = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access() {
    }

    /**
     * {@code ib_check_mr_access}: remote write and remote atomic need local write, and no unknown
     * bit may be set.
     */
    public static void checkMrAccess(int flags) {
        if ((flags & ~ALL) != 0) {
            throw new VerbsException(Errno.EINVAL, String.format("unknown access flags 0x%x", flags & ~ALL));
        }
        if ((flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new VerbsException(Errno.EINVAL, "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE");
        }
    }

    public static String toString(int flags) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND", "ZERO_BASED"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.length() == 0 ? "" : "|").append(names[i]);
            }
        }
        return sb.length() == 0 ? "0" : sb.toString();
    }
}
