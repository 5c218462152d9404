package org.jrdma.ib.mad.impl;

import org.jrdma.ib.mad.Mad;

/**
 * {@code core/smi.c} and {@code smi.h} for an endpoint (a CA: never a switch): the hop pointer / hop
 * count rules of directed-route SMPs (IBTA 14.2.2, C14-9 outgoing, C14-13 returning), and the SMP
 * layout ({@code struct ib_smp}).
 */
final class Smi {
    static final int DIRECTION = 0x8000;
    static final int LID_PERMISSIVE = 0xffff;
    static final int MAX_PATH_HOPS = 64;
    /** Offsets in the MAD. */
    static final int HOP_PTR = 6;
    static final int HOP_CNT = 7;
    static final int MKEY = 24;
    static final int DR_SLID = 32;
    static final int DR_DLID = 34;
    static final int DATA = 64;
    static final int DATA_SIZE = 64;
    static final int INITIAL_PATH = 128;
    static final int RETURN_PATH = 192;

    enum Action { HANDLE, DISCARD }

    private Smi() {
    }

    static boolean direction(Mad m) {
        return (m.status() & DIRECTION) != 0;
    }

    /** {@code smi_handle_dr_smp_send} with {@code is_switch} false. */
    static Action send(Mad m, int portNum) {
        int hopPtr = m.u8(HOP_PTR);
        int hopCnt = m.u8(HOP_CNT);
        boolean dlidPermissive = m.u16(DR_DLID) == LID_PERMISSIVE;
        boolean slidPermissive = m.u16(DR_SLID) == LID_PERMISSIVE;
        if (hopCnt >= MAX_PATH_HOPS) {
            return Action.DISCARD; // C14-6
        }
        if (!direction(m)) {
            if (hopCnt != 0 && hopPtr == 0) { // C14-9:1
                m.u8(HOP_PTR, ++hopPtr);
                return m.u8(INITIAL_PATH + hopPtr) == portNum ? Action.HANDLE : Action.DISCARD;
            }
            if (hopPtr != 0 && hopPtr < hopCnt) { // C14-9:2: only a switch forwards
                return Action.DISCARD;
            }
            if (hopPtr == hopCnt) { // C14-9:3
                m.u8(HOP_PTR, hopPtr + 1);
                return dlidPermissive ? Action.HANDLE : Action.DISCARD;
            }
            return hopPtr == hopCnt + 1 ? Action.HANDLE : Action.DISCARD; // C14-9:4, 5
        }
        if (hopCnt != 0 && hopPtr == hopCnt + 1) { // C14-13:1
            m.u8(HOP_PTR, --hopPtr);
            return m.u8(RETURN_PATH + hopPtr) == portNum ? Action.HANDLE : Action.DISCARD;
        }
        if (2 <= hopPtr && hopPtr <= hopCnt) { // C14-13:2
            return Action.DISCARD;
        }
        if (hopPtr == 1) { // C14-13:3
            m.u8(HOP_PTR, 0);
            return slidPermissive ? Action.HANDLE : Action.DISCARD;
        }
        return hopPtr == 0 ? Action.HANDLE : Action.DISCARD; // C14-13:4, 5
    }

    /** {@code smi_handle_dr_smp_recv} with {@code is_switch} false. */
    static Action recv(Mad m, int portNum, int physPortCnt) {
        int hopPtr = m.u8(HOP_PTR);
        int hopCnt = m.u8(HOP_CNT);
        boolean dlidPermissive = m.u16(DR_DLID) == LID_PERMISSIVE;
        boolean slidPermissive = m.u16(DR_SLID) == LID_PERMISSIVE;
        if (hopCnt >= MAX_PATH_HOPS) {
            return Action.DISCARD; // C14-6, as on send: the paths have 64 slots (a hop count of 255 wrote past the MAD)
        }
        if (!direction(m)) {
            if (hopCnt != 0 && hopPtr == 0) { // C14-9:1: the sender should have incremented it
                return Action.DISCARD;
            }
            if (hopPtr != 0 && hopPtr < hopCnt) { // C14-9:2
                return Action.DISCARD;
            }
            if (hopPtr == hopCnt) { // C14-9:3
                if (hopCnt != 0) {
                    m.u8(RETURN_PATH + hopPtr, portNum);
                }
                return dlidPermissive ? Action.HANDLE : Action.DISCARD;
            }
            return hopPtr == hopCnt + 1 ? Action.HANDLE : Action.DISCARD;
        }
        if (hopCnt != 0 && hopPtr == hopCnt + 1) { // C14-13:1
            m.u8(HOP_PTR, --hopPtr);
            return m.u8(RETURN_PATH + hopPtr) == portNum ? Action.HANDLE : Action.DISCARD;
        }
        if (2 <= hopPtr && hopPtr <= hopCnt) { // C14-13:2
            return Action.DISCARD;
        }
        if (hopPtr == 1) { // C14-13:3
            if (slidPermissive) {
                m.u8(HOP_PTR, 0);
                return Action.HANDLE;
            }
            return Action.DISCARD;
        }
        return hopPtr == 0 ? Action.HANDLE : Action.DISCARD;
    }

    /**
     * {@code handle_ib_smi} for a CA, after {@link #recv}: a request at the end of its directed part with
     * a permissive DrDLID is for this node's SMA ({@code IB_SMI_SEND}, then the send rules move the hop
     * pointer to hop count + 1); anything else that survived {@link #recv} is local.
     */
    static Action recvForLocal(Mad m, int portNum) {
        int hopPtr = m.u8(HOP_PTR);
        int hopCnt = m.u8(HOP_CNT);
        if (!direction(m) && hopPtr == hopCnt && m.u16(DR_DLID) == LID_PERMISSIVE) {
            return send(m, portNum);
        }
        if (!direction(m) && hopPtr != 0 && hopPtr < hopCnt) {
            return Action.DISCARD; // IB_SMI_FORWARD: a CA does not forward
        }
        return Action.HANDLE;
    }

    /**
     * Whether an outgoing DR SMP, after {@link #send}, stays on this node ({@code smi_check_local_smp} /
     * {@code smi_check_local_returning_smp}): a request with hop count 0 (to the own SMA), or a response
     * back at hop 0 whose path had no hops.
     */
    static boolean isLocal(Mad m) {
        return m.u8(HOP_CNT) == 0;
    }
}
