package org.jrdma.ulp.ipoib.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** ib_ipoib's module parameters adjusted as {@code ipoib_init_module} does. */
class QueueSizesTest {
    @Test
    void roundedUpClampedAndTheSendRingAtLeastTwiceMaxSendCqe() {
        assertEquals(new QueueSizes(128, 256), QueueSizes.of(128, 256), "the defaults");
        assertEquals(256, QueueSizes.of(128, 256).txQueueLen(), "tx_queue_len = 2 x send ring: Linux's qlen 256");
        assertEquals(new QueueSizes(512, 1024), QueueSizes.of(300, 1000));
        assertEquals(new QueueSizes(128, 2), QueueSizes.of(1, 1), "send at least 2 x MAX_SEND_CQE, recv at least 2");
        assertEquals(new QueueSizes(8192, 8192), QueueSizes.of(100_000, Integer.MAX_VALUE), "IPOIB_MAX_QUEUE_SIZE");
    }
}
