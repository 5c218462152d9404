package org.jrdma.ib.core.impl;

import java.nio.ByteBuffer;

import org.jrdma.ib.core.Access;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.LinkLayer;
import org.jrdma.ib.core.QpAttr;
import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;

/**
 * Argument checks against the device caps, done by ib-core before a driver sees a call (what
 * {@code verbs.c} and the {@code rxe_*_chk_*} functions check).
 */
final class Validate {
    private Validate() {
    }

    static VerbsException inval(String msg) {
        return new VerbsException(Errno.EINVAL, msg);
    }

    /** Every resource has an owner: ib-core destroys what a client leaves behind at its remove. */
    static void owner(org.jrdma.ib.core.IbClient owner, String op) {
        if (owner == null) {
            throw inval(op + ": owner is null (the IbClient that owns the resource)");
        }
    }

    /** A null argument of a verb: EINVAL naming it, as the kernel's checks, not a NullPointerException. */
    static void notNull(Object arg, String op, String name) {
        if (arg == null) {
            throw inval(op + ": " + name + " is null");
        }
    }

    static void range(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw inval(what + " " + value + " out of range " + min + ".." + max);
        }
    }

    static void port(DeviceImpl dev, int port, String op) {
        if (port < 1 || port > dev.physPortCnt()) {
            throw inval(op + ": port " + port + " out of range 1.." + dev.physPortCnt() + " of " + dev.name());
        }
    }

    static void mr(DeviceImpl dev, ByteBuffer buffer, long iova, int access) {
        if (buffer == null) {
            throw inval("regMr: buffer is null");
        }
        Access.checkMrAccess(access);
        long len = buffer.remaining();
        if (len == 0) {
            throw inval("regMr: length 0 (the buffer has no bytes remaining)");
        }
        if (buffer.isReadOnly() && (access & (Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0) {
            // ib_umem_get pins the pages for writing and fails with EFAULT on a read-only mapping
            throw new VerbsException(Errno.EFAULT, "regMr: the buffer is read-only; " + Access.toString(access)
                    + " needs a writable one (only REMOTE_READ or no access on read-only memory)");
        }
        if (len > dev.attr.maxMrSize()) {
            throw inval("regMr: length " + len + " above max_mr_size " + dev.attr.maxMrSize());
        }
        if (Long.compareUnsigned(iova + len, iova) < 0) {
            throw inval(String.format("regMr: iova 0x%x + length %d wraps around", iova, len));
        }
    }

    static void ah(DeviceImpl dev, AhAttr a, String op) {
        if (a == null) {
            throw inval(op + ": address vector is null");
        }
        port(dev, a.portNum(), op);
        LinkLayer ll = dev.linkLayer(a.portNum());
        if (ll == LinkLayer.ETHERNET && a.grh() == null) {
            throw inval(op + ": a RoCE address vector needs a GRH (the peer's GID)");
        }
        if (a.grh() != null) {
            range(op + ": sgid_index", a.grh().sgidIndex(), 0, dev.immutable(a.portNum()).gidTblLen() - 1);
            range(op + ": hop_limit", a.grh().hopLimit(), 0, 255);
            range(op + ": traffic_class", a.grh().trafficClass(), 0, 255);
            range(op + ": flow_label", a.grh().flowLabel(), 0, 0xfffff);
            if (a.grh().dgid() == null) {
                throw inval(op + ": GRH without a DGID");
            }
        }
        range(op + ": dlid", a.dlid(), 0, 0xffff);
        range(op + ": sl", a.sl(), 0, 15);
        range(op + ": src_path_bits", a.srcPathBits(), 0, 127);
    }

    static void qpInit(DeviceImpl dev, PdImpl pd, QpInitAttr a) {
        if (a == null) {
            throw inval("createQp: attr is null");
        }
        if (a.qpType() == null) {
            throw inval("createQp: qp_type is null");
        }
        if (!(a.sendCq() instanceof CqImpl) || !(a.recvCq() instanceof CqImpl)) {
            throw inval("createQp: " + (a.sendCq() == null ? "send CQ" : "receive CQ") + " is missing");
        }
        CqImpl scq = (CqImpl) a.sendCq();
        CqImpl rcq = (CqImpl) a.recvCq();
        pd.checkSameDevice(scq, "createQp: the send CQ");
        pd.checkSameDevice(rcq, "createQp: the receive CQ");
        scq.checkValid();
        rcq.checkValid();
        if (a.srq() != null) {
            if (!(a.srq() instanceof SrqImpl)) {
                throw inval("createQp: unknown SRQ object");
            }
            SrqImpl srq = (SrqImpl) a.srq();
            pd.checkSameDevice(srq, "createQp: the SRQ");
            srq.checkValid();
            if (a.qpType() == QpType.SMI || a.qpType() == QpType.GSI) {
                throw inval("createQp: a " + a.qpType() + " QP cannot use an SRQ");
            }
        }
        QpCap c = a.cap();
        if (c == null) {
            throw inval("createQp: cap is null");
        }
        DeviceAttr d = dev.attr;
        range("createQp: max_send_wr", c.maxSendWr(), 0, d.maxQpWr());
        range("createQp: max_send_sge", c.maxSendSge(), 0, d.maxSendSge());
        range("createQp: max_inline_data", c.maxInlineData(), 0, d.maxInlineData());
        if (a.srq() == null) {
            range("createQp: max_recv_wr", c.maxRecvWr(), 0, d.maxQpWr());
            range("createQp: max_recv_sge", c.maxRecvSge(), 0, d.maxRecvSge());
        }
        if (a.sqSigType() == null) {
            throw inval("createQp: sq_sig_type is null");
        }
        if (a.qpType().isSpecial()) {
            port(dev, a.portNum(), "createQp(" + a.qpType() + ")");
            if (a.qpType() == QpType.SMI && dev.linkLayer(a.portNum()) != LinkLayer.INFINIBAND) {
                throw inval("createQp: SMI QP0 exists only on InfiniBand ports; port " + a.portNum() + " of "
                        + dev.name() + " is " + dev.linkLayer(a.portNum()).label());
            }
            if (dev.specialQp(a.qpType(), a.portNum()) != null) {
                throw inval("createQp: a " + a.qpType() + " QP already exists on port " + a.portNum() + " of " + dev.name());
            }
        }
    }

    /** Ranges of a modify (the state table was already checked). */
    static void qpAttr(DeviceImpl dev, QpImpl qp, QpAttr a) {
        String op = dev.name() + ": modify QP " + qp.id;
        int port = a.has(QpAttrMask.PORT) ? a.port() : qp.port;
        if (a.has(QpAttrMask.PORT)) {
            port(dev, a.port(), op);
        }
        if (a.has(QpAttrMask.PKEY_INDEX) && port != 0) {
            range(op + ": pkey_index", a.pkeyIndex(), 0, dev.immutable(port).pkeyTblLen() - 1);
        }
        if (a.has(QpAttrMask.ACCESS_FLAGS) && (a.accessFlags() & ~(Access.QP_ALL | Access.LOCAL_WRITE)) != 0) {
            throw inval(op + String.format(": qp_access_flags 0x%x has bits a QP does not take", a.accessFlags()));
        }
        if (a.has(QpAttrMask.AV)) {
            ah(dev, a.av(), op + " (ah_attr)");
        }
        if (a.has(QpAttrMask.ALT_PATH)) {
            ah(dev, a.altPath(), op + " (alt_ah_attr)");
        }
        if (a.has(QpAttrMask.PATH_MTU)) {
            if (a.pathMtu() == null) {
                throw inval(op + ": path_mtu is null");
            }
            int p = a.has(QpAttrMask.AV) ? a.av().portNum() : port;
            if (p != 0 && a.pathMtu().bytes() > dev.ops.queryPort(p).maxMtu().bytes()) {
                throw inval(op + ": path_mtu " + a.pathMtu().bytes() + " above the port's max_mtu "
                        + dev.ops.queryPort(p).maxMtu().bytes());
            }
        }
        if (a.has(QpAttrMask.TIMEOUT)) {
            range(op + ": timeout", a.timeout(), 0, 31);
        }
        if (a.has(QpAttrMask.RETRY_CNT)) {
            range(op + ": retry_cnt", a.retryCnt(), 0, 7);
        }
        if (a.has(QpAttrMask.RNR_RETRY)) {
            range(op + ": rnr_retry", a.rnrRetry(), 0, 7);
        }
        if (a.has(QpAttrMask.MIN_RNR_TIMER)) {
            range(op + ": min_rnr_timer", a.minRnrTimer(), 0, 31);
        }
        if (a.has(QpAttrMask.RQ_PSN)) {
            range(op + ": rq_psn", a.rqPsn(), 0, 0xffffff);
        }
        if (a.has(QpAttrMask.SQ_PSN)) {
            range(op + ": sq_psn", a.sqPsn(), 0, 0xffffff);
        }
        if (a.has(QpAttrMask.DEST_QPN)) {
            range(op + ": dest_qp_num", a.destQpNum(), 0, 0xffffff);
        }
        if (a.has(QpAttrMask.MAX_QP_RD_ATOMIC)) {
            range(op + ": max_rd_atomic", a.maxRdAtomic(), 0, dev.attr.maxQpInitRdAtom());
        }
        if (a.has(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            range(op + ": max_dest_rd_atomic", a.maxDestRdAtomic(), 0, dev.attr.maxQpRdAtom());
        }
        if (a.has(QpAttrMask.PATH_MIG_STATE)) {
            range(op + ": path_mig_state", a.pathMigState(), 0, 2);
        }
    }
}
