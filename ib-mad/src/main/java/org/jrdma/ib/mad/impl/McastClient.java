package org.jrdma.ib.mad.impl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jrdma.ib.core.AsyncEvent;
import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.Gid;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.Multicast;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaException;

/**
 * {@code core/multicast.c}: the joins of every local user of a port to one MGID share one SA membership. A group keeps
 * how many members hold each JoinState bit; a join whose bits the port already holds (and whose components match the
 * group, {@code cmp_rec}) completes without the SA, otherwise it is sent (SubnAdmSet) with the member's record; a leave
 * sends SubnAdmDelete only for the bits no member holds any more ({@code get_leave_state}). Joins to one group are
 * serialized (one SA request at a time, the rest wait in order). PORT_ERR, LID_CHANGE, SM_CHANGE and CLIENT_REREGISTER
 * on a port end its memberships: every member's callback gets -ENETRESET and the ULP joins again, as Linux's IPoIB does.
 */
final class McastClient {
    static final int ENETRESET = 102;
    private static final int EINVAL = 22;
    private static final int LEAVE_RETRIES = 3;
    private static final long LEAVE_MASK = MCMemberRecord.MGID | MCMemberRecord.PORT_GID | MCMemberRecord.JOIN_STATE;

    /** The SA requests of a group (the SA client's {@code send}). */
    @FunctionalInterface
    interface Sa {
        CompletableFuture<Mad> send(IbDevice device, int port, int method, long compMask, byte[] record);
    }

    private record PortKey(IbDevice device, int port) {
    }

    private final Sa sa;
    /** Groups by port and MGID; a join with MGID 0 has its own group until the SA names the MGID. */
    private final Map<PortKey, Map<Gid, Group>> ports = new HashMap<>();
    private final Map<IbDevice, AutoCloseable> handlers = new HashMap<>();

    McastClient(Sa sa) {
        this.sa = sa;
    }

    /** {@code struct mcast_group}: the port's membership of one MGID; fields guarded by the group. */
    private final class Group {
        final PortKey port;
        MCMemberRecord rec;
        /** Members per JoinState bit (full, non, send-only). */
        final int[] members = new int[3];
        final Deque<Member> pending = new ArrayDeque<>();
        final List<Member> active = new ArrayList<>();
        final List<Member> leavers = new ArrayList<>();
        boolean busy;
        boolean error;

        Group(PortKey port, Gid mgid) {
            this.port = port;
            this.rec = new MCMemberRecord();
            this.rec.mgid = mgid;
        }

        void adjust(int joinState, int inc) {
            for (int i = 0; i < members.length; i++) {
                if ((joinState & 1 << i) != 0) {
                    members[i] += inc;
                }
            }
        }

        /** The bits the port holds with the SA that no member needs any more. */
        int leaveState() {
            int leave = 0;
            for (int i = 0; i < members.length; i++) {
                if (members[i] == 0) {
                    leave |= 1 << i;
                }
            }
            return leave & rec.joinState;
        }
    }

    /** {@code struct mcast_member}: one user's join. */
    private final class Member implements Multicast {
        final Group group;
        final long compMask;
        final Multicast.Callback callback;
        volatile MCMemberRecord rec;
        boolean active;
        boolean gone;
        /** Gone by a port event (-ENETRESET): freeing it is no error. */
        boolean reset;
        CompletableFuture<MCMemberRecord> left;

        Member(Group group, MCMemberRecord rec, long compMask, Multicast.Callback callback) {
            this.group = group;
            this.rec = rec;
            this.compMask = compMask;
            this.callback = callback;
        }

        @Override
        public MCMemberRecord rec() {
            return rec;
        }

        @Override
        public long compMask() {
            return compMask;
        }

        @Override
        public void close() {
            free(this);
        }
    }

    /** {@code ib_sa_join_multicast}. */
    Multicast join(IbDevice device, int port, MCMemberRecord rec, long compMask, Multicast.Callback callback) {
        watch(device);
        Group g = acquire(new PortKey(device, port), rec.mgid);
        Member m = new Member(g, rec, compMask, callback);
        boolean run;
        synchronized (g) {
            g.pending.add(m);
            run = !g.busy;
            g.busy = true;
        }
        if (run) {
            work(g);
        }
        return m;
    }

    /** {@code ib_sa_free_multicast}: done when the SA has the leave, or at once if others still hold the bits. */
    CompletableFuture<MCMemberRecord> free(Multicast multicast) {
        Member m = (Member) multicast;
        Group g = m.group;
        boolean run;
        synchronized (g) {
            if (m.reset) {
                return CompletableFuture.completedFuture(m.rec.copy());
            }
            if (m.gone) {
                return CompletableFuture.failedFuture(new SaException(-1, -EINVAL, "not joined (left before)"));
            }
            m.gone = true;
            m.left = new CompletableFuture<>();
            if (m.active) {
                g.adjust(m.rec.joinState, -1);
                g.active.remove(m);
                m.active = false;
                g.leavers.add(m);
            } else {
                g.pending.remove(m);
                m.left.completeExceptionally(new SaException(-1, -EINVAL, "not joined"));
            }
            run = !g.busy;
            g.busy = true;
        }
        if (run) {
            work(g);
        }
        return m.left;
    }

    private synchronized Group acquire(PortKey port, Gid mgid) {
        Map<Gid, Group> groups = ports.computeIfAbsent(port, p -> new HashMap<>());
        if (mgid.isZero()) {
            return new Group(port, mgid);
        }
        return groups.computeIfAbsent(mgid, x -> new Group(port, mgid));
    }

    private synchronized void insert(Group g) {
        ports.computeIfAbsent(g.port, p -> new HashMap<>()).putIfAbsent(g.rec.mgid, g);
    }

    private synchronized void release(Group g) {
        synchronized (g) {
            if (g.busy || !g.pending.isEmpty() || !g.active.isEmpty()) {
                return;
            }
        }
        Map<Gid, Group> groups = ports.get(g.port);
        if (groups != null) {
            groups.remove(g.rec.mgid, g);
        }
    }

    /**
     * {@code mcast_work_handler}: runs until the group waits for the SA (it goes on in the answer's handler) or has
     * nothing left to do. Callbacks run outside the group's lock.
     */
    private void work(Group g) {
        while (true) {
            Member m;
            int status = 0;
            boolean toSa = false;
            synchronized (g) {
                if (g.error) {
                    groupError(g);
                    continue;
                }
                m = g.pending.peek();
                if (m == null) {
                    break;
                }
                int js = m.rec.joinState;
                if ((g.rec.joinState & js) != js) {
                    toSa = true; // the head stays pending until the SA answers
                } else {
                    g.pending.poll();
                    status = cmpRec(g.rec, m.rec, m.compMask);
                    if (status == 0) {
                        joinGroup(g, m, js);
                    }
                }
            }
            if (toSa) {
                sendJoin(g, m); // outside the lock: the answer may come on this very thread
                return;
            }
            m.callback.joined(status, m);
        }
        int leave;
        List<Member> leavers;
        synchronized (g) {
            leave = g.leaveState();
            leavers = new ArrayList<>(g.leavers);
            g.leavers.clear();
            if (leave != 0) {
                g.rec.joinState &= ~leave;
            } else {
                g.busy = false;
            }
        }
        if (leave != 0) {
            sendLeave(g, leave, leavers, LEAVE_RETRIES);
            return;
        }
        for (Member l : leavers) {
            l.left.complete(l.rec.copy()); // others on the port still hold its bits: nothing for the SA
        }
        release(g);
    }

    /** {@code join_group}: the member holds its bits; its record is the group's with its own JoinState. */
    private static void joinGroup(Group g, Member m, int joinState) {
        m.active = true;
        g.adjust(joinState, 1);
        g.rec.joinState |= joinState;
        MCMemberRecord r = g.rec.copy();
        r.joinState = joinState;
        m.rec = r;
        g.active.add(m);
    }

    /** {@code process_group_error}: every member gets -ENETRESET and leaves; the port holds nothing any more. */
    private void groupError(Group g) {
        List<Member> gone = new ArrayList<>(g.active);
        for (Member m : gone) {
            g.adjust(m.rec.joinState, -1);
            m.active = false;
            m.gone = true;
            m.reset = true;
        }
        g.active.clear();
        g.rec.joinState = 0;
        g.error = false;
        CompletableFuture.runAsync(() -> gone.forEach(m -> m.callback.joined(-ENETRESET, m)));
    }

    private void sendJoin(Group g, Member m) {
        CompletableFuture<Mad> f;
        try {
            f = sa.send(g.port.device(), g.port.port(), Mad.METHOD_SET, m.compMask, m.rec.toWire());
        } catch (VerbsException e) {
            f = CompletableFuture.failedFuture(new SaException(-1, -e.errno().value(), e.getMessage()));
        }
        f.whenComplete((answer, e) -> joined(g, m, answer, e));
    }

    /** {@code join_handler}: the SA's record becomes the group's (a new MGID files the group under it). */
    private void joined(Group g, Member m, Mad answer, Throwable e) {
        if (e != null) {
            synchronized (g) {
                if (g.pending.peek() == m) {
                    g.pending.poll(); // process_join_error
                } else {
                    m = null;
                }
            }
            if (m != null) {
                Throwable c = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                m.callback.joined(c instanceof SaException se ? se.errno() : -5, m);
            }
        } else {
            boolean renamed;
            synchronized (g) {
                MCMemberRecord r = MCMemberRecord.fromWire(answer.bytes(), 56);
                renamed = !r.mgid.equals(g.rec.mgid);
                g.rec = r;
            }
            if (renamed) {
                insert(g);
            }
        }
        work(g);
    }

    private void sendLeave(Group g, int leave, List<Member> leavers, int retries) {
        MCMemberRecord r;
        synchronized (g) {
            r = g.rec.copy();
        }
        r.joinState = leave;
        CompletableFuture<Mad> f;
        try {
            f = sa.send(g.port.device(), g.port.port(), Mad.METHOD_DELETE, LEAVE_MASK, r.toWire());
        } catch (VerbsException e) {
            f = CompletableFuture.failedFuture(new SaException(-1, -e.errno().value(), e.getMessage()));
        }
        f.whenComplete((answer, e) -> {
            Throwable c = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
            if (c != null && retries > 0 && !(c instanceof SaException se && se.madStatus() > 0)) {
                sendLeave(g, leave, leavers, retries - 1); // leave_handler: resend unless the SA refused
                return;
            }
            for (Member l : leavers) {
                if (c != null) {
                    l.left.completeExceptionally(c);
                } else {
                    l.left.complete(MCMemberRecord.fromWire(answer.bytes(), 56));
                }
            }
            work(g);
        });
    }

    /** {@code cmp_rec}: the group's record against what a member asked for; 0 or -EINVAL. */
    static int cmpRec(MCMemberRecord g, MCMemberRecord want, long mask) {
        boolean bad = has(mask, MCMemberRecord.PORT_GID) && !g.portGid.equals(want.portGid)
                || has(mask, MCMemberRecord.QKEY) && g.qkey != want.qkey
                || has(mask, MCMemberRecord.MLID) && g.mlid != want.mlid
                || selector(mask, MCMemberRecord.MTU_SELECTOR, MCMemberRecord.MTU, want.mtuSelector, g.mtu, want.mtu)
                || has(mask, MCMemberRecord.TRAFFIC_CLASS) && g.trafficClass != want.trafficClass
                || has(mask, MCMemberRecord.PKEY) && g.pkey != want.pkey
                || selector(mask, MCMemberRecord.RATE_SELECTOR, MCMemberRecord.RATE, want.rateSelector, g.rate,
                        want.rate)
                || selector(mask, MCMemberRecord.PACKET_LIFE_TIME_SELECTOR, MCMemberRecord.PACKET_LIFE_TIME,
                        want.packetLifeTimeSelector, g.packetLifeTime, want.packetLifeTime)
                || has(mask, MCMemberRecord.SL) && g.sl != want.sl
                || has(mask, MCMemberRecord.FLOW_LABEL) && g.flowLabel != want.flowLabel
                || has(mask, MCMemberRecord.HOP_LIMIT) && g.hopLimit != want.hopLimit
                || has(mask, MCMemberRecord.SCOPE) && g.scope != want.scope;
        return bad ? -EINVAL : 0;
    }

    private static boolean has(long mask, long bit) {
        return (mask & bit) != 0;
    }

    /** {@code check_selector}: true if the group's value fails the member's selector (raw values, as Linux compares). */
    private static boolean selector(long mask, long selBit, long valueBit, int selector, int have, int want) {
        if (!has(mask, selBit) || !has(mask, valueBit)) {
            return false;
        }
        return switch (selector) {
            case PathRecord.SELECTOR_GT -> have <= want;
            case PathRecord.SELECTOR_LT -> have >= want;
            case PathRecord.SELECTOR_EQ -> have != want;
            default -> false;
        };
    }

    // ------------------------------------------------------------------ port events

    private synchronized void watch(IbDevice device) {
        if (!handlers.containsKey(device)) {
            try {
                handlers.put(device, device.registerEventHandler(this::event));
            } catch (RuntimeException e) {
                MadLayer.LOG.log(System.Logger.Level.DEBUG, "multicast: no port events from " + device.name());
                handlers.put(device, () -> { });
            }
        }
    }

    /** {@code mcast_event_handler}: the memberships of the port are gone (the SM, the LID or the port changed). */
    private void event(AsyncEvent ev) {
        EventType t = ev.type();
        if (t != EventType.PORT_ERR && t != EventType.LID_CHANGE && t != EventType.SM_CHANGE
                && t != EventType.CLIENT_REREGISTER) {
            return;
        }
        List<Group> groups;
        synchronized (this) {
            Map<Gid, Group> m = ports.get(new PortKey(ev.device(), ev.portNum()));
            groups = m == null ? List.of() : new ArrayList<>(m.values());
        }
        for (Group g : groups) {
            boolean run;
            synchronized (g) {
                g.error = true;
                run = !g.busy;
                g.busy = true;
            }
            if (run) {
                CompletableFuture.runAsync(() -> work(g)); // not on the driver's thread: callbacks may block
            }
        }
    }

    /** Stops watching port events. */
    synchronized void close() {
        for (AutoCloseable h : handlers.values()) {
            try {
                h.close();
            } catch (Exception e) {
                MadLayer.LOG.log(System.Logger.Level.DEBUG, "multicast close: " + e);
            }
        }
        handlers.clear();
    }
}
