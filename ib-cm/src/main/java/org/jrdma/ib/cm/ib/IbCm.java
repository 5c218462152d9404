package org.jrdma.ib.cm.ib;

import org.jrdma.ib.core.IbDevice;

/** The IB CM service ({@code ib_cm.h}). */
public interface IbCm {
    /** {@code IB_CM_MRA_FLAG_DELAY}, or-ed into an MRA's service timeout: send the MRA only when a duplicate REQ comes. */
    int MRA_FLAG_DELAY = 0x80;

    /**
     * {@code ib_create_cm_id}: a new id in IDLE on {@code device}. Events go to {@code handler} on the IB CM's
     * thread, one at a time and in order, outside the CM's lock (a handler may call back into the CM).
     */
    IbCmId createId(IbDevice device, IbCmHandler handler, Object context);
}
