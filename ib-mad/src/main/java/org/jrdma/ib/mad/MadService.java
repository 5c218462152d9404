package org.jrdma.ib.mad;

import java.util.Map;

import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;

/**
 * The MAD layer as a service. It opens the special QPs of every port as devices are added and closes
 * them (flushing every agent on them) when devices go away. Unclaimed Get/Set requests are answered with
 * status UNSUPPORTED_METHOD_ATTRIB, as {@code mad.c}'s {@code generate_unmatched_resp} does; everything
 * else unclaimed or malformed is dropped and counted ({@link #counters}).
 */
public interface MadService {
    /** {@code IB_QP1_QKEY}. */
    int QP1_QKEY = 0x80010000;

    /**
     * {@code ib_register_mad_agent}.
     *
     * @param qpType SMI (QP0; InfiniBand ports only) or GSI (QP1)
     * @param reg    the unsolicited MADs to claim, or null for an agent that only sends requests and
     *               gets their responses
     * @throws org.jrdma.ib.core.VerbsException EBUSY if another agent on the port claims one of the
     *         methods of that class and version; ENODEV if the device is gone or the port has no such QP;
     *         EINVAL for a bad port or QP type
     */
    MadAgent registerAgent(IbDevice device, int port, QpType qpType, MadRegistration reg, MadHandler handler);

    /** The per-port counters (sent, received, dropped by reason, timeouts), for tests and diagnostics. */
    Map<String, Long> counters(IbDevice device, int port);
}
