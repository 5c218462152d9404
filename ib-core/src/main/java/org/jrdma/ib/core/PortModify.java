package org.jrdma.ib.core;

/**
 * {@code struct ib_port_modify} for {@link IbDevice#modifyPort} ({@code ib_modify_port}): capability
 * bits to set and clear, as in Linux (an SM sets {@link #CAP_IS_SM} on the port it runs on), and the
 * port attributes a subnet manager assigns through SubnSet(PortInfo). On Linux the latter live in the
 * HCA's SMA (firmware, or the driver's {@code process_mad}); in jrdma the SMA is ib-mad's agent on QP0
 * and writes them here. Every field is optional: unset ones are left as they are.
 */
public final class PortModify {
    /** {@code IB_PORT_SM}: a subnet manager runs on the port. */
    public static final int CAP_IS_SM = 1 << 1;
    /** {@code IB_PORT_SM_DISABLED}. */
    public static final int CAP_SM_DISABLED = 1 << 10;

    private int setPortCapMask;
    private int clrPortCapMask;
    private int lid = -1;
    private int smLid = -1;
    private int lmc = -1;
    private int smSl = -1;
    private int subnetTimeout = -1;
    private PortState state;

    public int setPortCapMask() { return setPortCapMask; }
    public PortModify setPortCapMask(int v) { setPortCapMask = v; return this; }
    public int clrPortCapMask() { return clrPortCapMask; }
    public PortModify clrPortCapMask(int v) { clrPortCapMask = v; return this; }
    /** The base LID, or -1 to leave it. */
    public int lid() { return lid; }
    public PortModify lid(int v) { lid = v; return this; }
    /** The master SM's LID, or -1. */
    public int smLid() { return smLid; }
    public PortModify smLid(int v) { smLid = v; return this; }
    public int lmc() { return lmc; }
    public PortModify lmc(int v) { lmc = v; return this; }
    public int smSl() { return smSl; }
    public PortModify smSl(int v) { smSl = v; return this; }
    public int subnetTimeout() { return subnetTimeout; }
    public PortModify subnetTimeout(int v) { subnetTimeout = v; return this; }
    /** The logical port state to move to (DOWN, ARMED, ACTIVE as the SM drives it), or null. */
    public PortState state() { return state; }
    public PortModify state(PortState v) { state = v; return this; }

    @Override
    public String toString() {
        return "PortModify[set 0x" + Integer.toHexString(setPortCapMask) + " clr 0x" + Integer.toHexString(clrPortCapMask)
                + " lid " + lid + " smLid " + smLid + " lmc " + lmc + " state " + state + "]";
    }
}
