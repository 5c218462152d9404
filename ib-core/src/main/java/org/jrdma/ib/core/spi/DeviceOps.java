package org.jrdma.ib.core.spi;

import java.nio.ByteBuffer;
import java.util.Set;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CqNotify;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.MrType;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.RecvWr;
import org.jrdma.ib.core.SendWr;
import org.jrdma.ib.core.SrqAttr;
import org.jrdma.ib.core.SrqAttrMask;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WorkCompletion;

/**
 * {@code struct ib_device_ops}: the table a driver fills. A driver overrides what it supports; an op
 * left out fails with EOPNOTSUPP when called. The ops in {@link #MANDATORY} must be there, or
 * registration is refused, as {@code ib_device_check_mandatory()} refuses it.
 * <p>ib-core calls these only after validating arguments against the device caps and the QP state
 * table; it never calls an op on an object that was destroyed. Ops may be called concurrently.
 * Failures are {@link VerbsException}s with the errno the kernel driver would return.
 * <p>Linux's {@code get_dma_mr} has no meaning on the JVM (there is no physical address space to
 * expose), so {@code regUserMr} takes its place in the mandatory list.
 */
public interface DeviceOps {
    /** Ops a device must implement (method names of this interface). */
    Set<String> MANDATORY = Set.of("queryDevice", "queryPort", "queryPkey", "getPortImmutable",
            "allocPd", "deallocPd", "createQp", "modifyQp", "destroyQp", "postSend", "postRecv",
            "createCq", "destroyCq", "pollCq", "reqNotifyCq", "regUserMr", "deregMr");

    private static VerbsException unsupported(String op) {
        return new VerbsException(Errno.EOPNOTSUPP, "the driver does not implement " + op);
    }

    // ---- device and port
    default DeviceAttr queryDevice() { throw unsupported("query_device"); }

    default PortAttr queryPort(int portNum) { throw unsupported("query_port"); }

    default PortImmutable getPortImmutable(int portNum) { throw unsupported("get_port_immutable"); }

    default int queryPkey(int portNum, int index) { throw unsupported("query_pkey"); }

    default Gid queryGid(int portNum, int index) { throw unsupported("query_gid"); }

    /**
     * {@code get_hw_stats} of a port: counter name to value, in the driver's order (rxe: sent_pkts,
     * rcvd_pkts, ...). Optional: a device without hardware counters returns an empty map.
     */
    default java.util.Map<String, Long> queryHwStats(int portNum) { return java.util.Map.of(); }

    /**
     * {@code ib_device_get_netdev}: the name of the net device an Ethernet port runs on (rxe: the
     * netdev it was added on, {@code eth0}), which {@code rdma link} shows. Optional: null when the
     * port has none (InfiniBand, or a driver without netdevs).
     */
    default String getNetdev(int portNum) { return null; }

    /** {@code modify_port}: capability bits and SMA-assigned port attributes ({@link org.jrdma.ib.core.PortModify}). @since 1.2 */
    default void modifyPort(int portNum, org.jrdma.ib.core.PortModify modify) { throw unsupported("modify_port"); }

    // ---- PD
    default DriverPd allocPd() { throw unsupported("alloc_pd"); }

    default void deallocPd(DriverPd pd) { throw unsupported("dealloc_pd"); }

    // ---- AH
    default DriverAh createAh(DriverPd pd, AhAttr attr) { throw unsupported("create_ah"); }

    default void destroyAh(DriverAh ah) { throw unsupported("destroy_ah"); }

    // ---- CQ
    default DriverCq createCq(CqContext ctx, int cqe, int compVector) { throw unsupported("create_cq"); }

    default void destroyCq(DriverCq cq) { throw unsupported("destroy_cq"); }

    /** Fills {@code wc[0..max)} (reused objects) and returns the count. */
    default int pollCq(DriverCq cq, WorkCompletion[] wc, int max) { throw unsupported("poll_cq"); }

    default boolean reqNotifyCq(DriverCq cq, CqNotify type, boolean reportMissedEvents) {
        throw unsupported("req_notify_cq");
    }

    default void resizeCq(DriverCq cq, int cqe) { throw unsupported("resize_cq"); }

    // ---- QP
    /**
     * Creates a QP. {@code sendCq}/{@code recvCq}/{@code srq} are the driver objects behind the
     * core objects named in {@code attr} ({@code srq} may be null).
     */
    default DriverQp createQp(QpContext ctx, DriverPd pd, QpInitAttr attr, DriverCq sendCq, DriverCq recvCq,
            DriverSrq srq) {
        throw unsupported("create_qp");
    }

    /** Applies the attributes {@code attr.mask()} names; the transition was already checked. */
    default void modifyQp(DriverQp qp, QpAttr attr) { throw unsupported("modify_qp"); }

    default QpAttr queryQp(DriverQp qp) { throw unsupported("query_qp"); }

    default void destroyQp(DriverQp qp) { throw unsupported("destroy_qp"); }

    /** Posts the chain from {@code wr}; throws {@link org.jrdma.ib.core.PostException} naming the bad WR. */
    default void postSend(DriverQp qp, SendWr wr) { throw unsupported("post_send"); }

    default void postRecv(DriverQp qp, RecvWr wr) { throw unsupported("post_recv"); }

    default void attachMcast(DriverQp qp, Gid gid, int lid) { throw unsupported("attach_mcast"); }

    default void detachMcast(DriverQp qp, Gid gid, int lid) { throw unsupported("detach_mcast"); }

    // ---- SRQ
    default DriverSrq createSrq(SrqContext ctx, DriverPd pd, SrqAttr attr) { throw unsupported("create_srq"); }

    default void modifySrq(DriverSrq srq, SrqAttr attr, Set<SrqAttrMask> mask) { throw unsupported("modify_srq"); }

    default SrqAttr querySrq(DriverSrq srq) { throw unsupported("query_srq"); }

    default void destroySrq(DriverSrq srq) { throw unsupported("destroy_srq"); }

    default void postSrqRecv(DriverSrq srq, RecvWr wr) { throw unsupported("post_srq_recv"); }

    // ---- MR and MW
    /** {@code reg_user_mr}: {@code buffer} from position to limit, at I/O virtual address {@code iova}. */
    default DriverMr regUserMr(DriverPd pd, ByteBuffer buffer, long iova, int access) {
        throw unsupported("reg_user_mr");
    }

    default void reregUserMr(DriverMr mr, ByteBuffer buffer, long iova, int access) {
        throw unsupported("rereg_user_mr");
    }

    default DriverMr allocMr(DriverPd pd, MrType type, int maxNumSg) { throw unsupported("alloc_mr"); }

    default void mapMrSg(DriverMr mr, ByteBuffer buffer, long iova) { throw unsupported("map_mr_sg"); }

    default void deregMr(DriverMr mr) { throw unsupported("dereg_mr"); }

    default DriverMw allocMw(DriverPd pd, MwType type) { throw unsupported("alloc_mw"); }

    default void deallocMw(DriverMw mw) { throw unsupported("dealloc_mw"); }
}
