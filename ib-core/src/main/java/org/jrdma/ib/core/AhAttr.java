package org.jrdma.ib.core;

/**
 * {@code struct rdma_ah_attr}: an address vector, the route to a remote port. On IB the DLID (and a
 * GRH when it leaves the subnet); on RoCE always a GRH whose DGID is the peer's IP address.
 */
public final class AhAttr {
    private int portNum = 1;
    private int dlid;
    private int sl;
    private int srcPathBits;
    private int staticRate;
    private GlobalRoute grh;

    public AhAttr copy() {
        AhAttr c = new AhAttr();
        c.portNum = portNum;
        c.dlid = dlid;
        c.sl = sl;
        c.srcPathBits = srcPathBits;
        c.staticRate = staticRate;
        c.grh = grh == null ? null : grh.copy();
        return c;
    }

    public int portNum() {
        return portNum;
    }

    public AhAttr portNum(int portNum) {
        this.portNum = portNum;
        return this;
    }

    public int dlid() {
        return dlid;
    }

    public AhAttr dlid(int dlid) {
        this.dlid = dlid;
        return this;
    }

    public int sl() {
        return sl;
    }

    public AhAttr sl(int sl) {
        this.sl = sl;
        return this;
    }

    public int srcPathBits() {
        return srcPathBits;
    }

    public AhAttr srcPathBits(int srcPathBits) {
        this.srcPathBits = srcPathBits;
        return this;
    }

    public int staticRate() {
        return staticRate;
    }

    public AhAttr staticRate(int staticRate) {
        this.staticRate = staticRate;
        return this;
    }

    /** The global route, or null when the AV has no GRH ({@code IB_AH_GRH} clear). */
    public GlobalRoute grh() {
        return grh;
    }

    public AhAttr grh(GlobalRoute grh) {
        this.grh = grh;
        return this;
    }

    /** Convenience: a GRH to {@code dgid} from source GID {@code sgidIndex}. */
    public AhAttr grh(Gid dgid, int sgidIndex) {
        this.grh = new GlobalRoute().dgid(dgid).sgidIndex(sgidIndex);
        return this;
    }

    @Override
    public String toString() {
        return "AhAttr{port=" + portNum + ", dlid=" + dlid + ", sl=" + sl + ", grh=" + grh + "}";
    }
}
