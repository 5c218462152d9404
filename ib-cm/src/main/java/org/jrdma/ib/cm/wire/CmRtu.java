package org.jrdma.ib.cm.wire;

import org.jrdma.ib.mad.Mad;

/** RTU, ready to use (IBTA table 111): local comm ID at 0, remote comm ID at 4, 224 bytes of private data at 8. */
public final class CmRtu extends CmCommIdMessage<CmRtu> {
    public CmRtu() {
        super(CmAttr.RTU);
    }

    public static CmRtu decode(Mad m) {
        return new CmRtu().decodeFrom(m);
    }
}
