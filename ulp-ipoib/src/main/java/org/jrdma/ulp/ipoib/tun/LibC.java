package org.jrdma.ulp.ipoib.tun;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The few libc calls a TUN device needs ({@code open}, {@code ioctl}, {@code poll}, {@code read}, {@code write},
 * {@code close}), through JNA: the JDK 17 the container runs on has no final foreign-function API. Calls return
 * -1 and leave errno in {@link Native#getLastError()}, as in C; none throws.
 */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int O_RDWR = 0x2;
    int O_NONBLOCK = 0x800;
    int O_CLOEXEC = 0x80000;
    short POLLIN = 0x1;
    int EAGAIN = 11;
    int EINTR = 4;

    int open(String path, int flags);

    int ioctl(int fd, NativeLong request, Pointer arg);

    int poll(Pointer fds, int nfds, int timeoutMs);

    NativeLong read(int fd, Pointer buf, NativeLong count);

    NativeLong write(int fd, Pointer buf, NativeLong count);

    int close(int fd);

    String strerror(int errno);
}
