package org.jrdma.ulp.ipoib.impl;

/**
 * The ring sizes of every interface, from ib_ipoib's module parameters {@code send_queue_size} and
 * {@code recv_queue_size} as {@code ipoib_init_module} adjusts them: rounded up to a power of two, at most
 * {@value #MAX} ({@code IPOIB_MAX_QUEUE_SIZE}), at least {@value #MIN} ({@code IPOIB_MIN_QUEUE_SIZE}); the send
 * ring also at least twice {@code MAX_SEND_CQE} (64).
 */
record QueueSizes(int send, int recv) {
    static final int MIN = 2;
    static final int MAX = 8192;
    static final int MAX_SEND_CQE = 64;

    static QueueSizes of(int sendQueueSize, int recvQueueSize) {
        int send = Math.max(Math.min(roundUpPow2(sendQueueSize), MAX), Math.max(2 * MAX_SEND_CQE, MIN));
        int recv = Math.max(Math.min(roundUpPow2(recvQueueSize), MAX), MIN);
        return new QueueSizes(send, recv);
    }

    private static int roundUpPow2(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(Math.min(n, 1 << 30) - 1) << 1;
    }

    /** {@code dev->tx_queue_len = ipoib_sendq_size * 2}: what {@code ip link} shows as {@code qlen}. */
    int txQueueLen() {
        return send * 2;
    }
}
