package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/** DREP, disconnection reply (IBTA table 113): local comm ID at 0, remote comm ID at 4, 224 bytes of private data at 8. */
public final class CmDrep extends CmCommIdMessage<CmDrep> {
    public CmDrep() {
        super(CmAttr.DREP);
    }

    public static CmDrep decode(Mad m) {
        return new CmDrep().decodeFrom(m);
    }
}
