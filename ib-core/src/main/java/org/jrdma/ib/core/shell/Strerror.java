package org.jrdma.ib.core.shell;

import org.jrdma.ib.core.Errno;

/** glibc's {@code strerror()} texts, for {@code perror()}-style messages ({@code error: File exists}). */
final class Strerror {
    private Strerror() {
    }

    static String of(Errno errno) {
        if (errno == null) {
            return "Unknown error";
        }
        return switch (errno) {
            case EPERM -> "Operation not permitted";
            case ENOENT -> "No such file or directory";
            case EIO -> "Input/output error";
            case EAGAIN -> "Resource temporarily unavailable";
            case ENOMEM -> "Cannot allocate memory";
            case EFAULT -> "Bad address";
            case EBUSY -> "Device or resource busy";
            case EEXIST -> "File exists";
            case ENODEV -> "No such device";
            case EINVAL -> "Invalid argument";
            case ENOSPC -> "No space left on device";
            case ERANGE -> "Numerical result out of range";
            case EOPNOTSUPP -> "Operation not supported";
            case EADDRINUSE -> "Address already in use";
            case EADDRNOTAVAIL -> "Cannot assign requested address";
            case ENETUNREACH -> "Network is unreachable";
            case ECONNRESET -> "Connection reset by peer";
            case ETIMEDOUT -> "Connection timed out";
            case ECONNREFUSED -> "Connection refused";
            default -> "Unknown error " + errno.value();
        };
    }
}
