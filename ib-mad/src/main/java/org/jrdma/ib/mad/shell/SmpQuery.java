package org.jrdma.ib.mad.shell;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.QpType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.WcStatus;
import org.jrdma.ib.mad.Mad;
import org.jrdma.ib.mad.MadAgent;
import org.jrdma.ib.mad.MadHandler;
import org.jrdma.ib.mad.MadRecv;
import org.jrdma.ib.mad.MadSend;
import org.jrdma.ib.mad.MadService;

/**
 * libibmad's {@code smp_query_status_via} for the diag tools: a requester agent on QP0 of one port sending one SubnGet
 * at a time, LID-routed or directed-route, and waiting (bounded) for the answer.
 */
final class SmpQuery implements AutoCloseable {
    /** On the loopback, the neighbour one DR hop away (the switch's port 0) is named by this DLID. */
    static final int NEIGHBOUR_DLID = 0xc000;
    private final BlockingQueue<Object> answers = new LinkedBlockingQueue<>();
    private final MadAgent agent;
    private final int port;
    private final int timeoutMs;
    /** The MAD status of the last answer without the D bit, or -1 if none came. */
    int status = -1;

    SmpQuery(MadService mad, IbDevice device, int port, int timeoutMs) {
        this.port = port;
        this.timeoutMs = timeoutMs;
        this.agent = mad.registerAgent(device, port, QpType.SMI, null, new MadHandler() {
            @Override
            public void recv(MadAgent a, MadRecv recv) {
                answers.add(recv.mad());
            }

            @Override
            public void sendDone(MadAgent a, MadSend send, WcStatus st) {
                if (st != WcStatus.SUCCESS) {
                    answers.add(st);
                }
            }
        });
    }

    /** A LID-routed SubnGet: the answer (status 0), or null. */
    Mad lid(int lid, int attr, long mod) throws InterruptedException {
        Mad m = get(Mad.CLASS_SUBN_LID_ROUTED, attr, mod);
        return query(m, lid);
    }

    /** A directed-route SubnGet of one hop out of this port ({@code ibroute -D 0,<port>}): the answer, or null. */
    Mad neighbour(int attr, long mod) throws InterruptedException {
        Mad m = get(Mad.CLASS_SUBN_DIRECTED_ROUTE, attr, mod);
        m.u8(6, 0).u8(7, 1).u16(32, 0xffff).u16(34, 0xffff).u8(128 + 1, port);
        return query(m, NEIGHBOUR_DLID);
    }

    private Mad get(int mgmtClass, int attr, long mod) {
        return new Mad().baseVersion(1).mgmtClass(mgmtClass).classVersion(1).method(Mad.METHOD_GET)
                .tid(agent.newTid()).attrId(attr).attrMod(mod);
    }

    private Mad query(Mad m, int dlid) throws InterruptedException {
        status = -1;
        answers.clear();
        try {
            agent.send(new MadSend(m).ah(new AhAttr().dlid(dlid)).remoteQpn(0).remoteQkey(0).timeoutMs(timeoutMs)
                    .retries(1));
        } catch (VerbsException e) {
            return null;
        }
        Object got = answers.poll(timeoutMs * 3L + 2000, TimeUnit.MILLISECONDS);
        if (!(got instanceof Mad resp)) {
            return null;
        }
        status = resp.status() & 0x7fff;
        return status == 0 ? resp : null;
    }

    @Override
    public void close() {
        agent.close();
    }
}
