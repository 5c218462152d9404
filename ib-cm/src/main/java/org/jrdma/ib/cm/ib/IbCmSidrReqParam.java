package org.jrdma.ib.cm.ib;

/** {@code struct ib_cm_sidr_req_param}: a service ID resolution request ({@link IbCmId#sendSidrReq}). */
public final class IbCmSidrReqParam {
    private IbCmPath path;
    private long serviceId;
    private byte[] privateData = new byte[0];

    public IbCmPath path() { return path; }
    public IbCmSidrReqParam path(IbCmPath v) { path = v; return this; }
    public long serviceId() { return serviceId; }
    public IbCmSidrReqParam serviceId(long v) { serviceId = v; return this; }
    public byte[] privateData() { return privateData.clone(); }
    public IbCmSidrReqParam privateData(byte[] v) { privateData = v == null ? new byte[0] : v.clone(); return this; }
}
