package org.jrdma.ib.cm.tools;

import org.jrdma.ib.core.Errno;

/** The libc behaviours rping's parsing and messages depend on: {@code atoi} and {@code strerror}. */
final class CLib {
    private CLib() {
    }

    /**
     * glibc's {@code atoi}: {@code (int) strtol(s, NULL, 10)}: leading white space, a sign, as many
     * decimal digits as there are; 0 if none. strtol saturates at the long range, the cast keeps the
     * low 32 bits.
     */
    static int atoi(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && (s.charAt(i) == ' ' || (s.charAt(i) >= '\t' && s.charAt(i) <= '\r'))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        boolean overflow = false;
        for (; i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9'; i++) {
            int d = s.charAt(i) - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                overflow = true;
            } else {
                v = v * 10 + d;
            }
        }
        long l = overflow ? (negative ? Long.MIN_VALUE : Long.MAX_VALUE) : (negative ? -v : v);
        return (int) l;
    }

    /** glibc's {@code strerror()} text, by the errno's name (so errnos added to {@link Errno} later are known too). */
    static String strerror(Errno errno) {
        if (errno == null) {
            return "Unknown error";
        }
        return switch (errno.name()) {
            case "EPERM" -> "Operation not permitted";
            case "ENOENT" -> "No such file or directory";
            case "EINTR" -> "Interrupted system call";
            case "EIO" -> "Input/output error";
            case "EAGAIN" -> "Resource temporarily unavailable";
            case "ENOMEM" -> "Cannot allocate memory";
            case "EFAULT" -> "Bad address";
            case "EBUSY" -> "Device or resource busy";
            case "EEXIST" -> "File exists";
            case "ENODEV" -> "No such device";
            case "EINVAL" -> "Invalid argument";
            case "ENOSPC" -> "No space left on device";
            case "ERANGE" -> "Numerical result out of range";
            case "ENODATA" -> "No data available";
            case "EPROTONOSUPPORT" -> "Protocol not supported";
            case "EOPNOTSUPP" -> "Operation not supported";
            case "EAFNOSUPPORT" -> "Address family not supported by protocol";
            case "EADDRINUSE" -> "Address already in use";
            case "EADDRNOTAVAIL" -> "Cannot assign requested address";
            case "ENETDOWN" -> "Network is down";
            case "ENETUNREACH" -> "Network is unreachable";
            case "ECONNRESET" -> "Connection reset by peer";
            case "EISCONN" -> "Transport endpoint is already connected";
            case "ENOTCONN" -> "Transport endpoint is not connected";
            case "ETIMEDOUT" -> "Connection timed out";
            case "ECONNREFUSED" -> "Connection refused";
            case "EHOSTUNREACH" -> "No route to host";
            case "EALREADY" -> "Operation already in progress";
            default -> "Unknown error " + errno.value();
        };
    }
}
