package org.jrdma.ib.mad.impl;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.PortAttr;
import org.jrdma.ib.core.PortModify;
import org.jrdma.ib.core.PortState;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadRegistration;
import org.jrdma.ib.mad.MadSend;

/**
 * The subnet management agent of one InfiniBand port: two agents on QP0 claiming SubnGet and SubnSet
 * of the LID-routed (0x01) and directed-route (0x81) classes. What an HCA's firmware (or the
 * {@code process_mad} of qib/hfi1) does in Linux: it answers NodeDescription, NodeInfo, GUIDInfo,
 * PortInfo and P_KeyTable from the device's attributes in IBTA layout, and SubnSet(PortInfo) sets the
 * LID, LMC, SM LID, SM SL, subnet timeout and port state through {@link IbDevice#modifyPort}. SMInfo
 * is answered only while an SM runs on the port ({@link #smInfo}). M_Keys are not checked.
 */
final class Sma implements MadHandler {
    static final int ATTR_NODE_DESC = 0x0010;
    static final int ATTR_NODE_INFO = 0x0011;
    static final int ATTR_GUID_INFO = 0x0014;
    static final int ATTR_PORT_INFO = 0x0015;
    static final int ATTR_PKEY_TABLE = 0x0016;
    static final int ATTR_SM_INFO = 0x0020;

    private final MadPort port;
    private MadAgent lidRouted;
    private MadAgent directed;
    /** The SMInfo attribute (64 bytes) of an SM on this port, or null when none runs. */
    volatile Supplier<byte[]> smInfo;

    Sma(MadPort port) {
        this.port = port;
    }

    void open() {
        lidRouted = port.registerAgent(QpType.SMI,
                new MadRegistration(Mad.CLASS_SUBN_LID_ROUTED, 1, Mad.METHOD_GET, Mad.METHOD_SET), this);
        directed = port.registerAgent(QpType.SMI,
                new MadRegistration(Mad.CLASS_SUBN_DIRECTED_ROUTE, 1, Mad.METHOD_GET, Mad.METHOD_SET), this);
    }

    @Override
    public void recv(MadAgent agent, MadRecv recv) {
        Mad req = recv.mad();
        Mad resp = new Mad(req.bytes().clone());
        resp.method(Mad.METHOD_GET_RESP);
        for (int i = Smi.DATA; i < Smi.DATA + Smi.DATA_SIZE; i++) {
            resp.u8(i, 0);
        }
        port.counters.inc(MadCounters.SMA_REQUESTS);
        int status;
        try {
            status = answer(req, resp);
        } catch (VerbsException e) {
            MadLayer.LOG.log(System.Logger.Level.DEBUG, port + ": SMA: " + e.getMessage());
            status = Mad.STATUS_INVALID_ATTRIB_VALUE;
        }
        if (status != Mad.STATUS_SUCCESS) {
            port.counters.inc(MadCounters.SMA_ERRORS);
        }
        if (req.mgmtClass() == Mad.CLASS_SUBN_DIRECTED_ROUTE) {
            status |= Smi.DIRECTION;
        }
        resp.status(status);
        try {
            agent.send(new MadSend(resp).ah(agent.ahAttrFromWc(recv)).remoteQpn(recv.srcQp()).remoteQkey(0)
                    .pkeyIndex(recv.pkeyIndex()));
        } catch (VerbsException e) {
            MadLayer.LOG.log(System.Logger.Level.DEBUG, port + ": SMA could not answer " + req + ": " + e.getMessage());
        }
    }

    /** Fills the response's SMP data; returns the status. */
    private int answer(Mad req, Mad resp) {
        IbDevice dev = port.device;
        boolean set = req.method() == Mad.METHOD_SET;
        long mod = req.attrMod();
        switch (req.attrId()) {
            case ATTR_NODE_DESC -> {
                if (set) {
                    return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
                }
                byte[] d = nodeDescription(dev).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(d, 0, resp.bytes(), Smi.DATA, Math.min(d.length, 64));
                return Mad.STATUS_SUCCESS;
            }
            case ATTR_NODE_INFO -> {
                if (set) {
                    return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
                }
                nodeInfo(dev, port.port, resp, Smi.DATA);
                return Mad.STATUS_SUCCESS;
            }
            case ATTR_GUID_INFO -> {
                if (set) {
                    return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
                }
                int n = dev.queryPort(port.port).gidTblLen();
                if (mod * 8 >= n) {
                    return Mad.STATUS_INVALID_ATTRIB_VALUE;
                }
                for (int i = 0; i < 8 && mod * 8 + i < n; i++) {
                    resp.u64(Smi.DATA + 8 * i, dev.queryGid(port.port, (int) (mod * 8 + i)).interfaceId());
                }
                return Mad.STATUS_SUCCESS;
            }
            case ATTR_PORT_INFO -> {
                int p = mod == 0 ? port.port : (int) mod;
                if (p < 1 || p > dev.physPortCnt()) {
                    return Mad.STATUS_INVALID_ATTRIB_VALUE;
                }
                int status = Mad.STATUS_SUCCESS;
                if (set) {
                    status = setPortInfo(dev, p, req);
                }
                portInfo(dev, p, resp, Smi.DATA);
                return status;
            }
            case ATTR_PKEY_TABLE -> {
                if (set) {
                    return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
                }
                int block = (int) (mod & 0xffff);
                int n = dev.queryPort(port.port).pkeyTblLen();
                if (block * 32 >= n) {
                    return Mad.STATUS_INVALID_ATTRIB_VALUE;
                }
                for (int i = 0; i < 32 && block * 32 + i < n; i++) {
                    resp.u16(Smi.DATA + 2 * i, dev.queryPkey(port.port, block * 32 + i));
                }
                return Mad.STATUS_SUCCESS;
            }
            case ATTR_SM_INFO -> {
                Supplier<byte[]> s = smInfo;
                if (s == null || set) {
                    return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
                }
                System.arraycopy(s.get(), 0, resp.bytes(), Smi.DATA, Smi.DATA_SIZE);
                return Mad.STATUS_SUCCESS;
            }
            default -> {
                return Mad.STATUS_UNSUPPORTED_METHOD_ATTRIB;
            }
        }
    }

    /** SubnSet(PortInfo): what an SM may set on a CA port; an invalid value or transition changes nothing. */
    private static int setPortInfo(IbDevice dev, int p, Mad req) {
        int d = Smi.DATA;
        int lid = req.u16(d + 16);
        int smLid = req.u16(d + 18);
        int state = req.u8(d + 32) & 0xf;
        int lmc = req.u8(d + 34) & 0x7;
        int smSl = req.u8(d + 36) & 0xf;
        int subnetTimeout = req.u8(d + 51) & 0x1f;
        if (lid == 0 || lid >= 0xc000 || smLid >= 0xc000 || state == PortState.INIT.value() || state > 4) {
            return Mad.STATUS_INVALID_ATTRIB_VALUE;
        }
        PortModify m = new PortModify().lid(lid).smLid(smLid).lmc(lmc).smSl(smSl).subnetTimeout(subnetTimeout);
        if (state != 0) {
            m.state(PortState.values()[state]);
        }
        dev.modifyPort(p, m);
        return Mad.STATUS_SUCCESS;
    }

    // ------------------------------------------------------------------ IBTA layouts (ib_smi.h)

    /** {@code struct ib_node_info} (IBTA 14.2.5.3), 40 bytes at {@code off}. */
    static void nodeInfo(IbDevice dev, int portNum, Mad m, int off) {
        DeviceAttr a = dev.queryDevice();
        m.u8(off, 1).u8(off + 1, 1).u8(off + 2, dev.nodeType().value()).u8(off + 3, dev.physPortCnt());
        m.u64(off + 4, a.sysImageGuid()).u64(off + 12, dev.nodeGuid());
        m.u64(off + 20, dev.queryGid(portNum, 0).interfaceId());
        m.u16(off + 28, Math.max(a.maxPkeys(), 1)).u16(off + 30, a.vendorPartId() & 0xffff).u32(off + 32, a.hwVer());
        m.u8(off + 36, portNum).u8(off + 37, a.vendorId() >>> 16).u16(off + 38, a.vendorId() & 0xffff);
    }

    /** {@code struct ib_port_info} (IBTA 14.2.5.6), 64 bytes at {@code off}. */
    static void portInfo(IbDevice dev, int portNum, Mad m, int off) {
        PortAttr p = dev.queryPort(portNum);
        m.u64(off, 0); // M_Key
        m.u64(off + 8, dev.queryGid(portNum, 0).subnetPrefix());
        m.u16(off + 16, p.lid()).u16(off + 18, p.smLid()).u32(off + 20, p.portCapFlags() & 0xffffffffL);
        m.u16(off + 24, 0).u16(off + 26, 0); // DiagCode, M_KeyLeasePeriod
        m.u8(off + 28, portNum);
        m.u8(off + 29, 0x0f).u8(off + 30, 0x0f).u8(off + 31, p.activeWidth()); // width enabled / supported / active
        int legacySpeed = p.activeSpeed() <= 4 ? p.activeSpeed() : 4;
        m.u8(off + 32, 0x7 << 4 | p.state().value()); // LinkSpeedSupported SDR|DDR|QDR, PortState
        m.u8(off + 33, p.physState().value() << 4 | 2); // PortPhysicalState, LinkDownDefaultState Polling
        m.u8(off + 34, p.lmc() & 0x7); // M_KeyProtectBits 0, LMC
        m.u8(off + 35, legacySpeed << 4 | 0x7); // LinkSpeedActive, LinkSpeedEnabled
        m.u8(off + 36, p.activeMtu().code() << 4 | p.smSl() & 0xf); // NeighborMTU, MasterSMSL
        m.u8(off + 37, vlCap(p.maxVlNum()) << 4); // VLCap, InitType
        m.u8(off + 41, p.maxMtu().code()); // InitTypeReply 0, MTUCap
        m.u8(off + 42, 7 << 5 | 19); // VLStallCount 7, HOQLife 19
        m.u8(off + 43, vlCap(p.maxVlNum()) << 4); // OperationalVLs
        m.u16(off + 46, p.badPkeyCntr()).u16(off + 48, p.qkeyViolCntr());
        m.u8(off + 50, p.gidTblLen()); // GUIDCap
        m.u8(off + 51, p.subnetTimeout() & 0x1f);
        m.u8(off + 52, 8); // RespTimeValue
        int ext = switch (p.activeSpeed()) { case 16 -> 1; case 32 -> 2; case 64 -> 4; default -> 0; };
        m.u8(off + 62, ext << 4 | 0x3); // LinkSpeedExtActive, LinkSpeedExtSupported FDR|EDR
        m.u8(off + 63, 0x3); // LinkSpeedExtEnabled
    }

    /** VLCap: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14. */
    private static int vlCap(int maxVlNum) {
        return switch (maxVlNum) { case 2 -> 2; case 4 -> 3; case 8 -> 4; case 15 -> 5; default -> 1; };
    }

    /** rdma-ndd's default ({@code %h %d}): the host name and the device name. */
    static String nodeDescription(IbDevice dev) {
        return HOST + " " + dev.name();
    }

    static final String HOST = hostName();

    private static String hostName() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!h.isEmpty()) {
                return h.split("\\.")[0];
            }
        } catch (Exception e) {
            // not Linux
        }
        String h = System.getenv("HOSTNAME");
        return h == null || h.isBlank() ? "localhost" : h;
    }

    void close() {
        if (lidRouted != null) {
            lidRouted.close();
        }
        if (directed != null) {
            directed.close();
        }
    }
}
