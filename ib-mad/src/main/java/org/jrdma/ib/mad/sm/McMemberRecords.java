package org.jrdma.ib.mad.sm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jrdma.ib.core.Gid;
import org.jrdma.ib.mad.sa.MCMemberRecord;
import org.jrdma.ib.mad.sa.PathRecord;
import org.jrdma.ib.mad.sa.SaException;
import org.jrdma.ib.mad.sm.SubnetAdministrator.Answer;

/**
 * The SA's multicast groups (OpenSM's {@code osm_sa_mcmember_record.c} and {@code osm_multicast.c}):
 * SubnAdmSet(MCMemberRecord) joins, creating a group (MGID given or assigned, MLID from 0xC000) on a full
 * member's first join; SubnAdmDelete leaves (join state bits removed; without a full member the group is
 * freed with its MLID); Get/GetTable list the members. Every change of who receives what runs the
 * {@code changed} hook (the SM reprograms the switches' multicast forwarding). Not thread-safe: the SA
 * calls it under its own lock.
 */
final class McMemberRecords {
    static final int MLID_BASE = 0xc000;
    static final int MLID_END = 0xfffe;
    static final long REQUIRED_MC_CREATE = MCMemberRecord.MGID | MCMemberRecord.PORT_GID | MCMemberRecord.JOIN_STATE
            | MCMemberRecord.QKEY | MCMemberRecord.TRAFFIC_CLASS | MCMemberRecord.PKEY | MCMemberRecord.FLOW_LABEL
            | MCMemberRecord.SL;
    static final long JOIN_MC = MCMemberRecord.MGID | MCMemberRecord.PORT_GID | MCMemberRecord.JOIN_STATE;
    /** The join states that receive: a send-only non-member sends into the group and receives nothing. */
    static final int RECEIVING = MCMemberRecord.FULLMEMBER_JOIN | MCMemberRecord.NONMEMBER_JOIN;

    /** A multicast group: its record (PortGID and JoinState zero) and its members' join states. */
    static final class Group {
        final MCMemberRecord rec;
        final Map<Gid, Integer> members = new LinkedHashMap<>();

        Group(MCMemberRecord rec) {
            this.rec = rec;
        }
    }

    private final SubnetManager sm;
    private final Runnable changed;
    private final Map<Gid, Group> groups = new LinkedHashMap<>();
    /** {@code build_new_mgid}'s {@code uniq_count}. */
    private int uniqCount;

    McMemberRecords(SubnetManager sm, Runnable changed) {
        this.sm = sm;
        this.changed = changed;
    }

    List<MCMemberRecord> groups() {
        List<MCMemberRecord> l = new ArrayList<>();
        for (Group g : groups.values()) {
            l.add(g.rec.copy());
        }
        return l;
    }

    Map<Gid, Integer> members(Gid mgid) {
        Group g = groups.get(mgid);
        return g == null ? Map.of() : Map.copyOf(g.members);
    }

    /**
     * {@code osm_mgrp_delete_port} for every port the sweep no longer found: its memberships go, and a group left
     * without a full member with them. True if anything changed.
     */
    boolean dropAbsent(Set<Long> present) {
        boolean changed = false;
        for (java.util.Iterator<Group> it = groups.values().iterator(); it.hasNext();) {
            Group g = it.next();
            changed |= g.members.keySet().removeIf(gid -> !present.contains(gid.interfaceId()));
            if (g.members.values().stream().noneMatch(js -> (js & MCMemberRecord.FULLMEMBER_JOIN) != 0)) {
                g.members.clear();
                it.remove();
                changed = true;
            }
        }
        return changed;
    }

    /** MLID to the port GUIDs (GID interface IDs) of the members that receive, by MLID. */
    Map<Integer, Set<Long>> forwarding() {
        Map<Integer, Set<Long>> out = new TreeMap<>();
        for (Group g : groups.values()) {
            Set<Long> ports = new java.util.TreeSet<>();
            g.members.forEach((gid, js) -> {
                if ((js & RECEIVING) != 0) {
                    ports.add(gid.interfaceId());
                }
            });
            out.put(g.rec.mlid, ports);
        }
        return out;
    }

    private static final int[][] MCR_FIELDS = {{0, 16}, {16, 16}, {32, 4}, {36, 2}, null, null, {39, 1}, {40, 2}};

    /** SubnAdmGet/GetTable(MCMemberRecord): one record per (group, member) matching the template. */
    Answer records(byte[] q, long mask) {
        List<byte[]> out = new ArrayList<>();
        for (Group g : groups.values()) {
            for (Map.Entry<Gid, Integer> e : g.members.entrySet()) {
                MCMemberRecord r = g.rec.copy();
                r.portGid = e.getKey();
                r.joinState = e.getValue();
                byte[] w = r.toWire();
                if (SubnetAdministrator.matches(w, q, mask, MCR_FIELDS)) {
                    out.add(w);
                }
            }
        }
        return new Answer(0, MCMemberRecord.SIZE, out);
    }

    /**
     * {@code mcmr_rcv_join_mgrp}: the checks in OpenSM's order, each failure with its status (the mask without MGID,
     * PortGID and JoinState: ERR_REQ_INSUFFICIENT_COMPONENTS; a PortGID of another subnet: ERR_REQ_INVALID_GID; an
     * unknown port, a bad P_Key, a new group without a full member, parameters the group or the port cannot meet:
     * ERR_REQ_INVALID; a new group without OpenSM's create components: ERR_REQ_INSUFFICIENT_COMPONENTS).
     */
    Answer join(byte[] q, long mask) {
        MCMemberRecord want = MCMemberRecord.fromWire(q, 0);
        if ((mask & JOIN_MC) != JOIN_MC) {
            return Answer.error(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS);
        }
        if (want.portGid.subnetPrefix() != Gid.DEFAULT_SUBNET_PREFIX) {
            return Answer.error(SaException.ERR_REQ_INVALID_GID);
        }
        SubnetManager.PortRecord p = SubnetAdministrator.byGid(sm, want.portGid);
        if (p == null || (mask & MCMemberRecord.PKEY) != 0 && (want.pkey & 0x7fff) == 0) {
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        Group g = want.mgid.isZero() ? null : groups.get(want.mgid);
        boolean created = g == null;
        if (created) {
            if ((want.joinState & MCMemberRecord.FULLMEMBER_JOIN) == 0) {
                return Answer.error(SaException.ERR_REQ_INVALID); // o15-0.1.9: only a full member creates a group
            }
            if ((mask & REQUIRED_MC_CREATE) != REQUIRED_MC_CREATE) {
                return Answer.error(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS);
            }
            Answer err = create(want, mask, p);
            if (err != null) {
                return err;
            }
            g = groups.get(want.mgid);
        } else if (!sameComponents(g.rec, want, mask)) {
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        if (!selectorsMatch(g.rec, want, mask) || !portCanJoin(g.rec, p) || want.joinState == 0) {
            if (created) {
                groups.remove(g.rec.mgid); // osm_mgrp_cleanup of the group made for this join
            }
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        Integer before = g.members.get(want.portGid);
        int state = g.members.merge(want.portGid, want.joinState, (x, y) -> x | y);
        if (before == null || before != state) {
            changed.run();
        }
        MCMemberRecord r = g.rec.copy();
        r.portGid = want.portGid;
        r.joinState = state;
        r.proxyJoin = want.proxyJoin;
        return new Answer(0, MCMemberRecord.SIZE, List.of(r.toWire()));
    }

    private static boolean has(long mask, long bits) {
        return (mask & bits) == bits;
    }

    /**
     * OpenSM's {@code build_new_mgid}: {@code ff1<scope>:a01b:<subnet prefix>} with {@code uniq_count} at bytes 10..13
     * (a memcpy of a host-order, on x86 little-endian, uint32); null after 1000 taken ones.
     */
    private Gid newMgid(int scope) {
        byte[] raw = new byte[16];
        raw[0] = (byte) 0xff;
        raw[1] = (byte) (0x10 | scope);
        raw[2] = (byte) 0xa0;
        raw[3] = 0x1b;
        for (int i = 0; i < 8; i++) {
            raw[4 + i] = (byte) (Gid.DEFAULT_SUBNET_PREFIX >>> (56 - 8 * i));
        }
        for (int i = 0; i < 1000; i++) {
            int c = uniqCount++;
            raw[10] = (byte) c;
            raw[11] = (byte) (c >>> 8);
            raw[12] = (byte) (c >>> 16);
            raw[13] = (byte) (c >>> 24);
            Gid g = Gid.of(raw.clone());
            if (!groups.containsKey(g)) {
                return g;
            }
        }
        return null;
    }

    /** {@code get_new_mlid}: the lowest MLID no group has, from 0xC000; 0 if none is left. */
    private int freeMlid() {
        Set<Integer> used = new java.util.HashSet<>();
        for (Group g : groups.values()) {
            used.add(g.rec.mlid);
        }
        for (int l = MLID_BASE; l <= MLID_END; l++) {
            if (!used.contains(l)) {
                return l;
            }
        }
        return 0;
    }

    /** {@code mcmr_rcv_create_new_mgrp}: MGID (OpenSM's {@code build_new_mgid} if zero), MLID, MTU, rate. */
    private Answer create(MCMemberRecord want, long mask, SubnetManager.PortRecord p) {
        if (want.mgid.isZero()) {
            want.mgid = newMgid((mask & MCMemberRecord.SCOPE) != 0 ? want.scope : 2); // link-local unless asked
            if (want.mgid == null) {
                return Answer.error(SaException.ERR_NO_RESOURCES);
            }
        } else if (!validMgid(want.mgid.raw())) {
            return Answer.error(SaException.ERR_REQ_INVALID);
        }
        // mgrp_request_is_realizable: a value under a selector only with both bits, else the port's own
        int mtu = SubnetAdministrator.portMtu(p.portInfo());
        if (has(mask, MCMemberRecord.MTU | MCMemberRecord.MTU_SELECTOR) && want.mtuSelector != PathRecord.SELECTOR_BEST) {
            mtu = SubnetAdministrator.select(want.mtuSelector, want.mtu, mtu, v -> v, SubnetAdministrator.MTUS);
            if (mtu < 1 || want.mtu < 1 || want.mtu > 5) {
                return Answer.error(SaException.ERR_REQ_INVALID);
            }
        }
        int rate = SubnetAdministrator.portRate(p.portInfo());
        if (has(mask, MCMemberRecord.RATE | MCMemberRecord.RATE_SELECTOR)
                && want.rateSelector != PathRecord.SELECTOR_BEST) {
            rate = SubnetAdministrator.select(want.rateSelector, want.rate, rate, SubnetAdministrator::rateTenthsGbps,
                    SubnetAdministrator.RATES);
            if (rate < 0 || SubnetAdministrator.rateTenthsGbps(want.rate) == 0) {
                return Answer.error(SaException.ERR_REQ_INVALID);
            }
        }
        int mlid = freeMlid();
        if (mlid == 0) {
            return Answer.error(SaException.ERR_NO_RESOURCES);
        }
        MCMemberRecord rec = want.copy();
        rec.portGid = Gid.ZERO;
        rec.joinState = 0;
        rec.proxyJoin = false;
        rec.mlid = mlid;
        rec.mtuSelector = PathRecord.SELECTOR_EQ;
        rec.mtu = mtu;
        rec.rateSelector = PathRecord.SELECTOR_EQ;
        rec.rate = rate;
        rec.packetLifeTimeSelector = PathRecord.SELECTOR_EQ;
        if ((mask & MCMemberRecord.PACKET_LIFE_TIME) == 0) {
            rec.packetLifeTime = 0;
        }
        rec.scope = (rec.mgid.raw()[1] & 0xf);
        groups.put(rec.mgid, new Group(rec));
        return null;
    }

    /**
     * {@code validate_requested_mgid} (o15-0.1.5): a multicast GID (0xFF first), with IPoIB's signatures 0x401B and
     * 0x601B accepted as they are; otherwise no reserved flag bit and not the SA's own signature 0xA01B with link-local
     * scope (only the SA makes those).
     */
    static boolean validMgid(byte[] g) {
        if ((g[0] & 0xff) != 0xff) {
            return false;
        }
        int signature = (g[2] & 0xff) << 8 | g[3] & 0xff;
        if (signature == 0x401b || signature == 0x601b) {
            return true;
        }
        return (g[1] & 0xe0) == 0 && !(signature == 0xa01b && (g[1] & 0x0f) == 2);
    }

    /** {@code validate_other_comp_fields}: Q_Key, P_Key (base, and not both limited), TClass, SL, FlowLabel, HopLimit. */
    private static boolean sameComponents(MCMemberRecord g, MCMemberRecord want, long mask) {
        return !((mask & MCMemberRecord.QKEY) != 0 && want.qkey != g.qkey
                || (mask & MCMemberRecord.PKEY) != 0 && ((want.pkey & 0x7fff) != (g.pkey & 0x7fff)
                        || (want.pkey & 0x8000) == 0 && (g.pkey & 0x8000) == 0)
                || (mask & MCMemberRecord.TRAFFIC_CLASS) != 0 && want.trafficClass != g.trafficClass
                || (mask & MCMemberRecord.SL) != 0 && want.sl != g.sl
                || (mask & MCMemberRecord.FLOW_LABEL) != 0 && want.flowLabel != g.flowLabel
                || (mask & MCMemberRecord.HOP_LIMIT) != 0 && want.hopLimit != g.hopLimit);
    }

    /** {@code validate_more_comp_fields}: the group's MTU and rate against the selectors the mask names. */
    private static boolean selectorsMatch(MCMemberRecord g, MCMemberRecord want, long mask) {
        return ((mask & MCMemberRecord.MTU_SELECTOR) == 0 || holds(want.mtuSelector, Integer.compare(g.mtu, want.mtu)))
                && ((mask & MCMemberRecord.RATE_SELECTOR) == 0 || holds(want.rateSelector,
                        Integer.compare(SubnetAdministrator.rateTenthsGbps(g.rate),
                                SubnetAdministrator.rateTenthsGbps(want.rate))));
    }

    /** Whether {@code cmp} (the group's value against the wanted one) satisfies a selector; 3 (best) always does. */
    private static boolean holds(int selector, int cmp) {
        return switch (selector) {
            case PathRecord.SELECTOR_GT -> cmp > 0;
            case PathRecord.SELECTOR_LT -> cmp < 0;
            case PathRecord.SELECTOR_EQ -> cmp == 0;
            default -> true;
        };
    }

    /** {@code validate_port_caps}: the joining port carries the group's MTU and rate. */
    private static boolean portCanJoin(MCMemberRecord g, SubnetManager.PortRecord p) {
        return SubnetAdministrator.portMtu(p.portInfo()) >= g.mtu && SubnetAdministrator.rateTenthsGbps(
                SubnetAdministrator.portRate(p.portInfo())) >= SubnetAdministrator.rateTenthsGbps(g.rate);
    }

    /**
     * {@code mcmr_rcv_leave_mgrp} and {@code osm_mgrp_remove_port}: the JoinState bits asked for leave (o15-0.1.14:
     * the port must be a member, have at least one of them and no bit it does not have: else ERR_REQ_INVALID); a
     * member with none left goes; when the last full member goes, so does the group with every other member and its
     * MLID ({@code osm_mgrp_cleanup}). The answer carries the port's JoinState after the leave.
     */
    Answer leave(byte[] q, long mask) {
        MCMemberRecord want = MCMemberRecord.fromWire(q, 0);
        if ((mask & JOIN_MC) != JOIN_MC) {
            return Answer.error(SaException.ERR_REQ_INSUFFICIENT_COMPONENTS);
        }
        if (want.portGid.subnetPrefix() != Gid.DEFAULT_SUBNET_PREFIX) {
            return Answer.error(SaException.ERR_REQ_INVALID_GID);
        }
        Group g = groups.get(want.mgid);
        Integer state = g == null ? null : g.members.get(want.portGid);
        if (state == null || (state & want.joinState) == 0 || (want.joinState & ~state) != 0) {
            return Answer.error(SaException.ERR_REQ_INVALID); // validate_delete
        }
        int left = state & ~want.joinState;
        if (left == 0) {
            g.members.remove(want.portGid);
        } else {
            g.members.put(want.portGid, left);
        }
        if (g.members.values().stream().noneMatch(js -> (js & MCMemberRecord.FULLMEMBER_JOIN) != 0)) {
            g.members.clear(); // osm_mgrp_cleanup: no full member left
            groups.remove(want.mgid);
            left = 0;
        }
        changed.run();
        MCMemberRecord r = g.rec.copy();
        r.portGid = want.portGid;
        r.joinState = left;
        return new Answer(0, MCMemberRecord.SIZE, List.of(r.toWire()));
    }
}
