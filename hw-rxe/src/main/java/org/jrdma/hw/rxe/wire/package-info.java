/**
 * The RoCEv2 wire format of Linux {@code rdma_rxe} (Soft-RoCE, UDP port 4791): the opcode table, one
 * codec class per InfiniBand transport header, a reusable decoded-packet view, the invariant CRC and
 * the UDP source port rule.
 *
 * <p>Linux counterparts: {@code drivers/infiniband/sw/rxe/rxe_opcode.[ch]} ({@link org.jrdma.hw.rxe.wire.RxeOpcode},
 * {@link org.jrdma.hw.rxe.wire.RxeMask}), {@code rxe_hdr.h} ({@link org.jrdma.hw.rxe.wire.Bth},
 * {@link org.jrdma.hw.rxe.wire.Reth}, {@link org.jrdma.hw.rxe.wire.Aeth}, {@link org.jrdma.hw.rxe.wire.AtomicEth},
 * {@link org.jrdma.hw.rxe.wire.AtomicAckEth}, {@link org.jrdma.hw.rxe.wire.ImmDt}, {@link org.jrdma.hw.rxe.wire.Ieth},
 * {@link org.jrdma.hw.rxe.wire.Deth}), {@code rxe_recv.c} header checks ({@link org.jrdma.hw.rxe.wire.RxePacket}),
 * {@code rxe_icrc.c} ({@link org.jrdma.hw.rxe.wire.Icrc}), {@code rxe_qp.c}/{@code rxe_verbs.c} source port
 * ({@link org.jrdma.hw.rxe.wire.UdpSourcePort}).
 *
 * <p>Conventions: every codec is a set of static accessors over a {@link io.netty.buffer.ByteBuf} at an
 * <em>absolute</em> offset (like rxe's {@code __bth_psn(void *arg)}); getters never move the reader index,
 * setters never move the writer index, and nothing allocates. Multi-byte fields are big-endian (network
 * order) except the ICRC, which rxe stores little-endian.
 *
 * <p>Reference kernel: the golden tests run against captures of Linux 6.1 (Debian 6.1.176). That kernel's
 * rxe has no RDMA FLUSH (0x1C) or ATOMIC WRITE (0x1D); they arrived in 6.2 and are not in the table.
 *
 * <p>Private to the hw-rxe bundle for now (not exported).
 */
package org.jrdma.hw.rxe.wire;
