package org.jrdma.ib.core;

/** The Linux errno a failed verb maps to, so errors read the same as in the kernel. */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    EIO(5, "Input/output error"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    ENOSPC(28, "No space left on device"),
    ERANGE(34, "Numerical result out of range"),
    EOPNOTSUPP(95, "Operation not supported"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNRESET(104, "Connection reset by peer"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused");

    private final int value;
    private final String message;

    Errno(int value, String message) {
        this.value = value;
        this.message = message;
    }

    /** The positive errno value ({@code -EINVAL} is {@code -EINVAL.value()}). */
    public int value() {
        return value;
    }

    /** glibc's {@code strerror()} text ({@code EINVAL}: "Invalid argument"). */
    public String message() {
        return message;
    }

    /** The errno of that positive value, or null for one this enum does not name. */
    public static Errno of(int value) {
        for (Errno e : values()) {
            if (e.value == value) {
                return e;
            }
        }
        return null;
    }
}
