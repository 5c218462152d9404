package org.jrdma.launcher.attach;

/**
 * The frames of the attach protocol between {@code ./jrdma} (the client) and a service container, over its
 * Unix-domain socket. Each frame is a type byte, a 4-byte big-endian payload length, and the payload.
 */
public enum FrameType {
    /** client to container: a Gogo command line (UTF-8) to run in the connection's session. */
    COMMAND(1, Direction.TO_CONTAINER),
    /** client to container: Ctrl-C, interrupt the running command (no payload). */
    INTERRUPT(2, Direction.TO_CONTAINER),
    /** container to client: bytes the command wrote to its standard output. */
    STDOUT(3, Direction.TO_CLIENT),
    /** container to client: bytes the command wrote to its standard error. */
    STDERR(4, Direction.TO_CLIENT),
    /** container to client: the command line ended; payload: its exit status, 4 bytes big-endian. */
    EXIT(5, Direction.TO_CLIENT);

    /** Who sends a frame type. */
    public enum Direction { TO_CONTAINER, TO_CLIENT }

    private static final FrameType[] BY_CODE = new FrameType[8];

    static {
        for (FrameType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final Direction direction;

    FrameType(int code, Direction direction) {
        this.code = code;
        this.direction = direction;
    }

    public int code() {
        return code;
    }

    public Direction direction() {
        return direction;
    }

    /** The type with this code, or {@code null} when there is none. */
    public static FrameType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
