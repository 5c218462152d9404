package org.jrdma.hw.rxe.net;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.jrdma.hw.rxe.RxeDevice;
import org.jrdma.hw.rxe.wire.Icrc;
import org.jrdma.hw.rxe.wire.IcrcIpv4Span;
import org.jrdma.hw.rxe.wire.RxeWire;

/**
 * The receive-side ICRC check for devices on a real network (installed by {@link RxeNetDevice}).
 *
 * <p>A Linux rxe peer fills the IPv4 Identification field, which its ICRC covers, with a value a UDP socket
 * never sees. So for IPv4 this uses the ID-agnostic {@link IcrcIpv4Span} (16-bit strength, see there): the
 * packet passes if some IP ID makes its ICRC correct. IPv6 has no such field: the full check
 * ({@link RxeDevice.IcrcCheck#EXACT}).
 */
public final class RxeNetIcrc {
    /** IPv4: any IP ID; IPv6: exact. */
    public static final RxeDevice.IcrcCheck ID_AGNOSTIC = (icrc, pkt, src, dst, srcPort) -> {
        if (src instanceof Inet4Address && dst instanceof Inet4Address) {
            int c0 = icrc.ipv4(v4(src), v4(dst), 0, Icrc.IPV4_DF, srcPort, RxeWire.ROCE_V2_UDP_DPORT, pkt.buf(),
                    pkt.bthOffset(), pkt.length());
            return IcrcIpv4Span.consistent(c0, pkt.icrc(), pkt.length());
        }
        return RxeDevice.IcrcCheck.EXACT.ok(icrc, pkt, src, dst, srcPort);
    };

    private RxeNetIcrc() {
    }

    /** The check to install on a device with a {@link NettyWire}. */
    public static RxeDevice.IcrcCheck receiveCheck() {
        return ID_AGNOSTIC;
    }

    private static int v4(InetAddress a) {
        return RxeDevice.v4(a);
    }
}
