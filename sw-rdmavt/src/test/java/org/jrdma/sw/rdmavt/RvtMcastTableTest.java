package org.jrdma.sw.rdmavt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.DeviceAttr;
import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.QpCap;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.junit.jupiter.api.Test;

/** {@link RvtMcastTable}: rdmavt's and rxe's errors and limits, the driver's group hooks. */
class RvtMcastTableTest {
    private final List<String> events = new ArrayList<>();
    private final RvtMcastTable.Listener listener = new RvtMcastTable.Listener() {
        @Override
        public void groupAdded(Gid mgid) {
            events.add("+" + mgid.toCompressedString());
        }

        @Override
        public void groupRemoved(Gid mgid) {
            events.add("-" + mgid.toCompressedString());
        }
    };

    private final RvtQp a = qp(0x11);
    private final RvtQp b = qp(0x12);

    private static RvtQp qp(int qpn) {
        return new RvtQp(null, null, qpn, null, new QpInitAttr().qpType(QpType.UD)
                .cap(new QpCap().maxSendWr(1).maxRecvWr(1)), null, null, null);
    }

    private static Gid mgid(int n) {
        return Gid.parse("ff12:401b::" + n);
    }

    private RvtMcastTable table(int groups, int perGroup, int total, boolean byLid) {
        return new RvtMcastTable(new DeviceAttr().maxMcastGrp(groups).maxMcastQpAttach(perGroup)
                .maxTotalMcastQpAttach(total), byLid, listener);
    }

    private static void assertErrno(Errno e, Runnable r) {
        assertEquals(e, assertThrows(VerbsException.class, r::run).errno());
    }

    @Test
    void attachTwiceIsOneMemberAndDetachTheLastRemovesTheGroup() {
        RvtMcastTable t = table(4, 4, 8, true);
        t.attach(a, mgid(1), 0xc001);
        t.attach(a, mgid(1), 0xc001); // no error, no second member
        t.attach(b, mgid(1), 0xc001);
        assertArrayEquals(new RvtQp[] {a, b}, t.group(mgid(1)).qps());
        assertArrayEquals(new RvtQp[] {a, b}, t.qpsByMlid(0xc001));
        t.detach(a, mgid(1), 0xc001);
        assertErrno(Errno.EINVAL, () -> t.detach(a, mgid(1), 0xc001));
        t.detach(b, mgid(1), 0xc001);
        assertNull(t.group(mgid(1)));
        assertEquals(List.of("+ff12:401b::1", "-ff12:401b::1"), events);
    }

    @Test
    void limitsGiveEnomem() {
        RvtMcastTable t = table(1, 2, 8, true);
        t.attach(qp(0x11), mgid(1), 0xc001);
        t.attach(qp(0x12), mgid(1), 0xc001);
        assertErrno(Errno.ENOMEM, () -> t.attach(qp(0x13), mgid(1), 0xc001)); // max_mcast_qp_attach
        assertErrno(Errno.ENOMEM, () -> t.attach(qp(0x13), mgid(2), 0xc002)); // max_mcast_grp
        RvtMcastTable u = table(4, 4, 1, true);
        u.attach(qp(0x11), mgid(1), 0xc001);
        assertErrno(Errno.ENOMEM, () -> u.attach(qp(0x12), mgid(2), 0xc002)); // max_total_mcast_qp_attach
        assertErrno(Errno.EINVAL, () -> table(0, 4, 4, true).attach(qp(0x11), mgid(1), 0xc001));
    }

    @Test
    void mlidMustMatchOnlyWhenGroupsAreByLid() {
        RvtMcastTable ib = table(4, 4, 8, true);
        ib.attach(qp(0x11), mgid(1), 0xc001);
        assertErrno(Errno.EINVAL, () -> ib.attach(qp(0x12), mgid(1), 0xc002));
        RvtMcastTable roce = table(4, 4, 8, false);
        roce.attach(a, mgid(1), 0xc001);
        roce.attach(qp(0x12), mgid(1), 0);
        roce.detach(a, mgid(1), 7);
    }

    @Test
    void detachAllLeavesEveryGroup() {
        RvtMcastTable t = table(4, 4, 8, true);
        t.attach(a, mgid(1), 0xc001);
        t.attach(a, mgid(2), 0xc002);
        t.attach(b, mgid(2), 0xc002);
        t.detachAll(a);
        assertNull(t.group(mgid(1)));
        assertArrayEquals(new RvtQp[] {b}, t.group(mgid(2)).qps());
        assertEquals(List.of(mgid(2)), t.mgids());
        t.attach(qp(0x13), mgid(3), 0xc003); // the freed attachments count again
    }
}
