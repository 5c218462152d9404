package org.jrdma.ib.core.impl;

import static org.jrdma.ib.core.QpAttrMask.*;
import static org.jrdma.ib.core.QpState.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.jrdma.ib.core.QpAttrMask;
import org.jrdma.ib.core.QpState;
import org.jrdma.ib.core.QpType;
import org.junit.jupiter.api.Test;

/** The table against the kernel's, and ib_modify_qp_is_ok's rules over every cell. */
class QpStateTableTest {

    /** Legal transitions of Linux's qp_state_table, written out independently of the table. */
    static final Map<QpState, Set<QpState>> LEGAL = Map.of(
            RESET, EnumSet.of(RESET, INIT),
            INIT, EnumSet.of(RESET, ERR, INIT, RTR),
            RTR, EnumSet.of(RESET, ERR, RTS),
            RTS, EnumSet.of(RESET, ERR, RTS, SQD),
            SQD, EnumSet.of(RESET, ERR, RTS, SQD),
            SQE, EnumSet.of(RESET, ERR, RTS),
            ERR, EnumSet.of(RESET, ERR));

    static Set<QpAttrMask> with(Set<QpAttrMask> s, QpAttrMask... more) {
        EnumSet<QpAttrMask> r = s.isEmpty() ? EnumSet.noneOf(QpAttrMask.class) : EnumSet.copyOf(s);
        r.addAll(Set.of(more));
        return r;
    }

    @Test
    void legalTransitionsAreExactlyTheKernels() {
        for (QpState cur : QpState.values()) {
            assertEquals(LEGAL.get(cur), QpStateTable.nextStates(cur), "from " + cur);
        }
    }

    @Test
    void everyCellFollowsTheRequiredAndOptionalRules() {
        int cells = 0;
        for (QpState cur : QpState.values()) {
            for (QpState next : QpState.values()) {
                for (QpType type : QpType.values()) {
                    if (!LEGAL.get(cur).contains(next)) {
                        String why = QpStateTable.check(cur, next, type, Set.of(STATE));
                        assertTrue(why != null && why.contains("not allowed"), cur + "->" + next + " " + why);
                        continue;
                    }
                    cells++;
                    Set<QpAttrMask> req = QpStateTable.required(cur, next, type);
                    Set<QpAttrMask> opt = QpStateTable.optional(cur, next, type);
                    Set<QpAttrMask> base = with(req, STATE);
                    if (next == cur && !req.isEmpty()) {
                        throw new AssertionError("a same-state transition never requires anything");
                    }
                    if (!(cur == SQD && next == SQD) && (req.contains(CUR_STATE))) {
                        throw new AssertionError("CUR_STATE is never required");
                    }
                    // CUR_STATE is only legal from RTR/RTS/SQD/SQE even where the table lists it
                    assertNull(QpStateTable.check(cur, next, type, base), cur + "->" + next + " " + type + " with " + base);
                    for (QpAttrMask r : req) {
                        Set<QpAttrMask> missing = EnumSet.copyOf(base);
                        missing.remove(r);
                        String why = QpStateTable.check(cur, next, type, missing);
                        assertTrue(why != null && why.contains("requires") && why.contains(r.name()),
                                cur + "->" + next + " " + type + " without " + r + ": " + why);
                    }
                    for (QpAttrMask o : opt) {
                        assertNull(QpStateTable.check(cur, next, type, with(base, o)),
                                cur + "->" + next + " " + type + " + optional " + o);
                    }
                    for (QpAttrMask x : QpAttrMask.values()) {
                        if (x == STATE || req.contains(x) || opt.contains(x)) {
                            continue;
                        }
                        String why = QpStateTable.check(cur, next, type, with(base, x));
                        assertTrue(why != null && (why.contains("does not allow") || why.contains("CUR_STATE")),
                                cur + "->" + next + " " + type + " + " + x + ": " + why);
                    }
                }
            }
        }
        assertEquals(5 * (2 + 4 + 3 + 4 + 4 + 3 + 2), cells);
    }

    @Test
    void knownKernelEntries() {
        assertEquals(EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), QpStateTable.required(RESET, INIT, QpType.RC));
        assertEquals(EnumSet.of(PKEY_INDEX, PORT, QKEY), QpStateTable.required(RESET, INIT, QpType.UD));
        assertEquals(EnumSet.of(PKEY_INDEX, QKEY), QpStateTable.required(RESET, INIT, QpType.GSI));
        assertEquals(EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                QpStateTable.required(INIT, RTR, QpType.RC));
        assertEquals(EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN), QpStateTable.required(INIT, RTR, QpType.UC));
        assertTrue(QpStateTable.required(INIT, RTR, QpType.UD).isEmpty());
        assertEquals(EnumSet.of(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC),
                QpStateTable.required(RTR, RTS, QpType.RC));
        assertEquals(EnumSet.of(SQ_PSN), QpStateTable.required(RTR, RTS, QpType.UD));
        assertEquals(EnumSet.of(EN_SQD_ASYNC_NOTIFY), QpStateTable.optional(RTS, SQD, QpType.RC));
        assertTrue(QpStateTable.optional(SQE, RTS, QpType.RC).isEmpty(), "RC never enters SQE");
        assertFalse(QpStateTable.isOk(RESET, ERR, QpType.RC, Set.of(STATE)));
    }

    @Test
    void curStateOnlyFromRtrRtsSqdSqe() {
        String why = QpStateTable.check(INIT, INIT, QpType.RC, Set.of(CUR_STATE));
        assertTrue(why != null && why.contains("CUR_STATE"), why);
        assertNull(QpStateTable.check(RTS, RTS, QpType.RC, Set.of(STATE, CUR_STATE)));
    }
}
