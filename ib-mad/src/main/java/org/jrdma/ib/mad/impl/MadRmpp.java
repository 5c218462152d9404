package org.jrdma.ib.mad.impl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadSend;

/**
 * {@code mad_rmpp.c} for one port: the sender's window ({@code send_next_seg}, {@code process_rmpp_ack},
 * STOP and ABORT) and the requester's reassembly of a multi-segment response with its ACKs ({@code
 * ib_process_rmpp_recv_wc}). The header itself is {@link Rmpp}; sends go out through the port's {@link
 * MadSendQueue}, whose response timer is also the ACK timer. Runs under the port's monitor.
 */
final class MadRmpp {
    /** The sender's ACK timeout and retries when the send gives none. */
    static final int TIMEOUT_MS = 1000;
    static final int RETRIES = 3;
    /** Our receive window, in segments: an ACK of segment n opens up to n + 64. */
    static final int RECV_WINDOW = 64;

    private final MadPort port;
    private final MadSendQueue sends;

    MadRmpp(MadPort port, MadSendQueue sends) {
        this.port = port;
        this.sends = sends;
    }

    /**
     * The sender's window of one transfer: segments in all, the last acknowledged, the window's end
     * (NewWindowLast), the next to send.
     */
    static final class Sender {
        final int segCount;
        int lastAck;
        int newWin = 1; // the first window is one segment (IBTA 13.6.5)
        int next = 1;

        Sender(int segCount) {
            this.segCount = segCount;
        }
    }

    /** The requester's reassembly of one response: the segments so far, in order. */
    static final class Receiver {
        final List<byte[]> segs = new ArrayList<>();
    }

    // ------------------------------------------------------------------ sender

    /**
     * Whether {@code send} goes with RMPP (a MAD longer than 256 bytes, or {@link MadSend#rmpp}); EINVAL if
     * it may not: RMPP is for the GSI QP and the classes that define the header only.
     */
    static boolean checkSend(MadPort.QpInfo q, MadSend send) {
        Mad m = send.mad();
        boolean rmpp = m.bytes().length > Mad.SIZE || send.rmppDataLen() >= 0;
        if (rmpp && q.type != QpType.GSI) {
            throw new VerbsException(Errno.EINVAL, "send: RMPP (a MAD of " + m.bytes().length
                    + " bytes) is for the GSI QP only");
        }
        if (rmpp && !Rmpp.classUsesRmpp(m.mgmtClass())) {
            // ib_register_mad_agent refuses an RMPP agent for such a class: its receivers read no RMPP header
            throw new VerbsException(Errno.EINVAL, String.format("send: class 0x%02x has no RMPP (a MAD of %d bytes)",
                    m.mgmtClass(), m.bytes().length));
        }
        return rmpp;
    }

    /** An RMPP transfer: its segments, and the ACK timeout and retries if the send has no response timeout. */
    static void initSend(MadSendWr wr) {
        int per = Mad.SIZE - Rmpp.dataOffset(wr.mgmtClass);
        wr.rmpp = new Sender(Math.max(1, (dataLen(wr) + per - 1) / per));
        if (wr.timeoutMs == 0) {
            wr.timeoutMs = TIMEOUT_MS;
            wr.retriesLeft = retries(wr);
        }
    }

    private static int dataLen(MadSendWr wr) {
        MadSend send = wr.send;
        return send.rmppDataLen() >= 0 ? send.rmppDataLen() : send.mad().bytes().length - Rmpp.dataOffset(wr.mgmtClass);
    }

    private static int retries(MadSendWr wr) {
        return wr.send.retries() > 0 ? wr.send.retries() : RETRIES;
    }

    /** A (re)send of the window: from the segment after the last acknowledged one up to NewWindowLast. */
    void resendWindowLocked(MadSendWr wr) {
        wr.rmpp.next = wr.rmpp.lastAck + 1;
        sendWindowLocked(wr);
    }

    /**
     * {@code send_next_seg}: every segment from {@code next} up to the receiver's window, each the headers
     * (common, RMPP, class: {@code ib_get_mad_data_offset}) and the next slice of class data; First carries
     * the whole PayloadLength, Last the rest.
     */
    private void sendWindowLocked(MadSendWr wr) {
        Sender s = wr.rmpp;
        byte[] big = wr.send.mad().bytes();
        int hdr = Rmpp.dataOffset(wr.mgmtClass);
        int per = Mad.SIZE - hdr;
        int dataLen = dataLen(wr);
        int pad = s.segCount * per - dataLen;
        while (s.next <= Math.min(s.newWin, s.segCount)) {
            int n = s.next++;
            byte[] seg = new byte[Mad.SIZE];
            System.arraycopy(big, 0, seg, 0, hdr);
            int from = hdr + (n - 1) * per;
            System.arraycopy(big, from, seg, hdr, Math.max(0, Math.min(per, Math.min(big.length, hdr + dataLen) - from)));
            boolean first = n == 1;
            boolean last = n == s.segCount;
            int flags = Rmpp.FLAG_ACTIVE | (first ? Rmpp.FLAG_FIRST : 0) | (last ? Rmpp.FLAG_LAST : 0);
            long paylen = last ? Rmpp.RMPP_DATA - pad : first ? (long) s.segCount * Rmpp.RMPP_DATA - pad : 0;
            Rmpp.set(new Mad(seg), Rmpp.TYPE_DATA, flags, n, paylen);
            sends.postBytesLocked(wr, seg);
            port.counters.inc(MadCounters.RMPP_SEGS_SENT);
        }
    }

    /** What a control MAD does to the transfer it names ({@code ib_process_rmpp_recv_wc} at the sender). */
    private enum Control {
        /** {@code process_rmpp_ack}: moves the window. */
        ACK,
        /** {@code process_rmpp_stop}, {@code process_rmpp_abort}, and any other type: the transfer ends. */
        ABORT;

        static Control of(Mad m) {
            return Rmpp.type(m) == Rmpp.TYPE_ACK ? ACK : ABORT;
        }
    }

    /** What an ACK is, against the sender's window. */
    private enum Ack {
        /** Past the last segment, or a window that ends before it: the transfer is aborted. */
        INVALID,
        /** Before the last one acknowledged already: ignored. */
        OLD,
        /** Acknowledges the last segment: the send is done. */
        LAST,
        /** Moves the window: the next segments go out. */
        PROGRESS;

        static Ack of(Sender s, long seg, long newWin) {
            if (seg > s.segCount || newWin < seg) {
                return INVALID;
            }
            if (seg < s.lastAck) {
                return OLD;
            }
            return seg == s.segCount ? LAST : PROGRESS;
        }
    }

    /**
     * ACK, STOP or ABORT of a transfer we send: an ACK moves the window (and ends the transfer once the last
     * segment is acknowledged); STOP and ABORT end it with REM_ABORT_ERR. Anything that matches no RMPP send
     * of ours is consumed silently.
     */
    void senderControlLocked(MadPort.QpInfo q, Mad mad) {
        MadSendWr wr = findTransfer(q, mad);
        if (wr == null) {
            port.counters.inc(MadCounters.RMPP_CTL_CONSUMED); // for no transfer of ours: consumed, but counted
            return;
        }
        switch (Control.of(mad)) {
            case ACK -> ackLocked(q, wr, Rmpp.segNum(mad), Rmpp.paylenNewwin(mad));
            case ABORT -> abortLocked(wr);
        }
    }

    private static MadSendWr findTransfer(MadPort.QpInfo q, Mad mad) {
        MadSendWr wr = null;
        for (MadAgentImpl a : q.agents) {
            for (MadSendWr w : a.outstanding.values()) {
                if (w.rmpp != null && w.tid == mad.tid() && w.mgmtClass == mad.mgmtClass() && !w.done) {
                    wr = w;
                }
            }
        }
        return wr;
    }

    private void abortLocked(MadSendWr wr) {
        port.counters.inc(MadCounters.RMPP_ABORTS);
        sends.completeLocked(wr, WcStatus.REM_ABORT_ERR);
    }

    private void ackLocked(MadPort.QpInfo q, MadSendWr wr, long seg, long newWin) {
        Sender s = wr.rmpp;
        Ack ack = Ack.of(s, seg, newWin);
        if (ack == Ack.INVALID) {
            abortLocked(wr);
            return;
        }
        if (ack == Ack.OLD) {
            return;
        }
        s.lastAck = (int) seg;
        s.newWin = (int) Math.max(s.newWin, Math.min(newWin, s.segCount));
        wr.retriesLeft = retries(wr);
        if (ack == Ack.LAST) {
            sends.respondedLocked(wr);
            return;
        }
        sends.startTimerLocked(wr);
        if (s.next <= s.lastAck) {
            s.next = s.lastAck + 1;
        }
        try {
            sendWindowLocked(wr);
        } catch (RuntimeException e) {
            MadLayer.LOG.log(System.Logger.Level.WARNING, q + ": RMPP segment send failed", e);
            sends.completeLocked(wr, WcStatus.GENERAL_ERR);
        }
    }

    // ------------------------------------------------------------------ receiver

    /**
     * The requester's side of {@code ib_process_rmpp_recv_wc}: keeps the segments of a multi-MAD response in
     * order, acknowledges each, and returns the reassembled MAD once the last is in, else null.
     */
    Mad recvSegmentLocked(MadPort.QpInfo q, MadSendWr wr, Mad seg, MadSource src) {
        port.counters.inc(MadCounters.RMPP_SEGS_RCVD);
        long n = Rmpp.segNum(seg);
        if (wr.rmppRecv == null) {
            if (n != 1 || (Rmpp.flags(seg) & Rmpp.FLAG_FIRST) == 0) {
                port.counters.inc(MadCounters.RMPP_ABORTS);
                return null;
            }
            wr.rmppRecv = new Receiver();
        }
        List<byte[]> segs = wr.rmppRecv.segs;
        if (n == segs.size() + 1) {
            segs.add(seg.bytes().clone());
        }
        // the response timer covers the whole transfer: restart it on progress
        if (wr.timer != null) {
            sends.startTimerLocked(wr);
        }
        sends.postReplyLocked(q, ack(seg, segs.size()), src, null);
        if ((Rmpp.flags(seg) & Rmpp.FLAG_LAST) == 0 || n != segs.size()) {
            return null;
        }
        wr.rmppRecv = null;
        port.counters.inc(MadCounters.RMPP_REASSEMBLED);
        return reassemble(segs, seg);
    }

    /** {@code format_ack}: the ACK of segment {@code n} travels as a request, the window 64 past it. */
    private static Mad ack(Mad seg, int n) {
        Mad ack = new Mad(Arrays.copyOf(seg.bytes(), Mad.SIZE));
        Arrays.fill(ack.bytes(), 36, Mad.SIZE, (byte) 0);
        ack.method(ack.method() ^ Mad.METHOD_RESP);
        Rmpp.set(ack, Rmpp.TYPE_ACK, Rmpp.FLAG_ACTIVE, n, n + RECV_WINDOW);
        return ack;
    }

    /**
     * The first segment's headers, then every segment's class data, as long as {@code get_mad_len} says
     * (the last segment's PayloadLength); the first segment's PayloadLength, the total, stays in the header.
     */
    private static Mad reassemble(List<byte[]> segs, Mad last) {
        int hdr = Rmpp.dataOffset(last.mgmtClass());
        int per = Mad.SIZE - hdr;
        long pad = Rmpp.RMPP_DATA - Rmpp.paylenNewwin(last);
        if (pad < 0 || pad > per) {
            pad = 0;
        }
        int len = (int) (hdr + (long) segs.size() * per - pad);
        byte[] all = new byte[Math.max(len, Mad.SIZE)];
        System.arraycopy(segs.get(0), 0, all, 0, hdr);
        for (int i = 0; i < segs.size(); i++) {
            System.arraycopy(segs.get(i), hdr, all, hdr + i * per, Math.min(per, len - hdr - i * per));
        }
        return new Mad(all, Math.max(len, hdr));
    }
}
