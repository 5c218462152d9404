package org.jrdma.ib.core;

/** The Linux errno a failed verb maps to, so errors read the same as in the kernel. */
public enum Errno {
    EPERM(1), ENOENT(2), EIO(5), EAGAIN(11), ENOMEM(12), EFAULT(14), EBUSY(16), EEXIST(17),
    ENODEV(19), EINVAL(22), ENOSPC(28), ERANGE(34), EOPNOTSUPP(95), EADDRINUSE(98), EADDRNOTAVAIL(99),
    ENETUNREACH(101), ECONNRESET(104), ETIMEDOUT(110), ECONNREFUSED(111);

    private final int value;

    Errno(int value) {
        this.value = value;
    }

    /** The positive errno value ({@code -EINVAL} is {@code -EINVAL.value()}). */
    public int value() {
        return value;
    }
}
