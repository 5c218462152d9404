package org.jrdma.ib.core.impl;

import static org.jrdma.ib.core.QpAttrMask.ACCESS_FLAGS;
import static org.jrdma.ib.core.QpAttrMask.ALT_PATH;
import static org.jrdma.ib.core.QpAttrMask.AV;
import static org.jrdma.ib.core.QpAttrMask.CUR_STATE;
import static org.jrdma.ib.core.QpAttrMask.DEST_QPN;
import static org.jrdma.ib.core.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.jrdma.ib.core.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.jrdma.ib.core.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.jrdma.ib.core.QpAttrMask.MIN_RNR_TIMER;
import static org.jrdma.ib.core.QpAttrMask.PATH_MIG_STATE;
import static org.jrdma.ib.core.QpAttrMask.PATH_MTU;
import static org.jrdma.ib.core.QpAttrMask.PKEY_INDEX;
import static org.jrdma.ib.core.QpAttrMask.PORT;
import static org.jrdma.ib.core.QpAttrMask.QKEY;
import static org.jrdma.ib.core.QpAttrMask.RETRY_CNT;
import static org.jrdma.ib.core.QpAttrMask.RNR_RETRY;
import static org.jrdma.ib.core.QpAttrMask.RQ_PSN;
import static org.jrdma.ib.core.QpAttrMask.SQ_PSN;
import static org.jrdma.ib.core.QpAttrMask.STATE;
import static org.jrdma.ib.core.QpAttrMask.TIMEOUT;
import static org.jrdma.ib.core.QpState.ERR;
import static org.jrdma.ib.core.QpState.INIT;
import static org.jrdma.ib.core.QpState.RESET;
import static org.jrdma.ib.core.QpState.RTR;
import static org.jrdma.ib.core.QpState.RTS;
import static org.jrdma.ib.core.QpState.SQD;
import static org.jrdma.ib.core.QpState.SQE;
import static org.jrdma.ib.core.QpType.GSI;
import static org.jrdma.ib.core.QpType.RC;
import static org.jrdma.ib.core.QpType.SMI;
import static org.jrdma.ib.core.QpType.UC;
import static org.jrdma.ib.core.QpType.UD;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;

/**
 * The {@code qp_state_table} of Linux {@code core/verbs.c} behind {@code ib_modify_qp_is_ok()}:
 * which transitions are legal, and per QP type which attributes each one requires and allows.
 * Data, not code: {@link #TABLE} is the kernel's table, row by row (XRC and raw-packet QPs left out).
 */
public final class QpStateTable {

    /** One legal transition: required and optional attributes per QP type. */
    record Transition(Map<QpType, Set<QpAttrMask>> required, Map<QpType, Set<QpAttrMask>> optional) {
        Set<QpAttrMask> required(QpType t) {
            return required.getOrDefault(t, EnumSet.noneOf(QpAttrMask.class));
        }

        Set<QpAttrMask> optional(QpType t) {
            return optional.getOrDefault(t, EnumSet.noneOf(QpAttrMask.class));
        }
    }

    private static final Map<QpState, Map<QpState, Transition>> TABLE = new EnumMap<>(QpState.class);

    private static Set<QpAttrMask> m(QpAttrMask first, QpAttrMask... rest) {
        return EnumSet.of(first, rest);
    }

    private static final class Row {
        final Map<QpType, Set<QpAttrMask>> req = new EnumMap<>(QpType.class);
        final Map<QpType, Set<QpAttrMask>> opt = new EnumMap<>(QpType.class);

        Row req(QpType t, Set<QpAttrMask> s) {
            req.put(t, s);
            return this;
        }

        Row opt(QpType t, Set<QpAttrMask> s) {
            opt.put(t, s);
            return this;
        }
    }

    private static void valid(QpState from, QpState to, Row row) {
        TABLE.computeIfAbsent(from, k -> new EnumMap<>(QpState.class)).put(to, new Transition(row.req, row.opt));
    }

    private static void valid(QpState from, QpState to) {
        valid(from, to, new Row());
    }

    static {
        valid(RESET, RESET);
        valid(RESET, INIT, new Row()
                .req(UD, m(PKEY_INDEX, PORT, QKEY))
                .req(UC, m(PKEY_INDEX, PORT, ACCESS_FLAGS))
                .req(RC, m(PKEY_INDEX, PORT, ACCESS_FLAGS))
                .req(SMI, m(PKEY_INDEX, QKEY))
                .req(GSI, m(PKEY_INDEX, QKEY)));

        valid(INIT, RESET);
        valid(INIT, ERR);
        valid(INIT, INIT, new Row()
                .opt(UD, m(PKEY_INDEX, PORT, QKEY))
                .opt(UC, m(PKEY_INDEX, PORT, ACCESS_FLAGS))
                .opt(RC, m(PKEY_INDEX, PORT, ACCESS_FLAGS))
                .opt(SMI, m(PKEY_INDEX, QKEY))
                .opt(GSI, m(PKEY_INDEX, QKEY)));
        valid(INIT, RTR, new Row()
                .req(UC, m(AV, PATH_MTU, DEST_QPN, RQ_PSN))
                .req(RC, m(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER))
                .opt(UD, m(PKEY_INDEX, QKEY))
                .opt(UC, m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX))
                .opt(RC, m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX))
                .opt(SMI, m(PKEY_INDEX, QKEY))
                .opt(GSI, m(PKEY_INDEX, QKEY)));

        valid(RTR, RESET);
        valid(RTR, ERR);
        valid(RTR, RTS, new Row()
                .req(UD, m(SQ_PSN))
                .req(UC, m(SQ_PSN))
                .req(RC, m(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC))
                .req(SMI, m(SQ_PSN))
                .req(GSI, m(SQ_PSN))
                .opt(UD, m(CUR_STATE, QKEY))
                .opt(UC, m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE))
                .opt(RC, m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE))
                .opt(SMI, m(CUR_STATE, QKEY))
                .opt(GSI, m(CUR_STATE, QKEY)));

        valid(RTS, RESET);
        valid(RTS, ERR);
        valid(RTS, RTS, new Row()
                .opt(UD, m(CUR_STATE, QKEY))
                .opt(UC, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE))
                .opt(RC, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER))
                .opt(SMI, m(CUR_STATE, QKEY))
                .opt(GSI, m(CUR_STATE, QKEY)));
        valid(RTS, SQD, new Row()
                .opt(UD, m(EN_SQD_ASYNC_NOTIFY))
                .opt(UC, m(EN_SQD_ASYNC_NOTIFY))
                .opt(RC, m(EN_SQD_ASYNC_NOTIFY))
                .opt(SMI, m(EN_SQD_ASYNC_NOTIFY))
                .opt(GSI, m(EN_SQD_ASYNC_NOTIFY)));

        valid(SQD, RESET);
        valid(SQD, ERR);
        valid(SQD, RTS, new Row()
                .opt(UD, m(CUR_STATE, QKEY))
                .opt(UC, m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE))
                .opt(RC, m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE))
                .opt(SMI, m(CUR_STATE, QKEY))
                .opt(GSI, m(CUR_STATE, QKEY)));
        valid(SQD, SQD, new Row()
                .opt(UD, m(PKEY_INDEX, QKEY))
                .opt(UC, m(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE))
                .opt(RC, m(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC,
                        ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE))
                .opt(SMI, m(PKEY_INDEX, QKEY))
                .opt(GSI, m(PKEY_INDEX, QKEY)));

        valid(SQE, RESET);
        valid(SQE, ERR);
        valid(SQE, RTS, new Row()
                .opt(UD, m(CUR_STATE, QKEY))
                .opt(UC, m(CUR_STATE, ACCESS_FLAGS))
                .opt(SMI, m(CUR_STATE, QKEY))
                .opt(GSI, m(CUR_STATE, QKEY)));

        valid(ERR, RESET);
        valid(ERR, ERR);
    }

    private QpStateTable() {
    }

    /** {@code ib_modify_qp_is_ok()} as a boolean. */
    public static boolean isOk(QpState cur, QpState next, QpType type, Set<QpAttrMask> mask) {
        return check(cur, next, type, mask) == null;
    }

    /**
     * Why a modify is not allowed, or null if it is. {@code mask} includes STATE when the state
     * changes; without STATE the transition is {@code cur -> cur}.
     */
    public static String check(QpState cur, QpState next, QpType type, Set<QpAttrMask> mask) {
        if (mask.contains(CUR_STATE) && cur != RTR && cur != RTS && cur != SQD && cur != SQE) {
            return "CUR_STATE may only be given in RTR, RTS, SQD or SQE, not " + cur;
        }
        Transition t = TABLE.getOrDefault(cur, Map.of()).get(next);
        if (t == null) {
            return "transition " + cur + " -> " + next + " is not allowed";
        }
        Set<QpAttrMask> req = t.required(type);
        Set<QpAttrMask> missing = EnumSet.noneOf(QpAttrMask.class);
        for (QpAttrMask a : req) {
            if (!mask.contains(a)) {
                missing.add(a);
            }
        }
        if (!missing.isEmpty()) {
            return cur + " -> " + next + " on a " + type + " QP requires " + missing;
        }
        Set<QpAttrMask> extra = EnumSet.noneOf(QpAttrMask.class);
        for (QpAttrMask a : mask) {
            if (a != STATE && !req.contains(a) && !t.optional(type).contains(a)) {
                extra.add(a);
            }
        }
        if (!extra.isEmpty()) {
            return cur + " -> " + next + " on a " + type + " QP does not allow " + extra;
        }
        return null;
    }

    /** Legal next states from {@code cur} (for tests and tools). */
    public static Set<QpState> nextStates(QpState cur) {
        Map<QpState, Transition> row = TABLE.get(cur);
        return row == null ? EnumSet.noneOf(QpState.class) : EnumSet.copyOf(row.keySet());
    }

    /** Required attributes of a legal transition (for tests and tools). */
    public static Set<QpAttrMask> required(QpState cur, QpState next, QpType type) {
        Transition t = TABLE.get(cur).get(next);
        return EnumSet.copyOf(t.required(type).isEmpty() ? EnumSet.noneOf(QpAttrMask.class) : t.required(type));
    }

    /** Optional attributes of a legal transition. */
    public static Set<QpAttrMask> optional(QpState cur, QpState next, QpType type) {
        Transition t = TABLE.get(cur).get(next);
        return t.optional(type).isEmpty() ? EnumSet.noneOf(QpAttrMask.class) : EnumSet.copyOf(t.optional(type));
    }
}
