package org.jrdma.ulp.iser.login;

import static org.jrdma.ulp.iser.login.LoginCaptures.pdu;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jrdma.ulp.iser.pdu.InitiatorSn;
import org.jrdma.ulp.iser.pdu.IscsiPdu;
import org.jrdma.ulp.iser.pdu.IscsiProtocolException;
import org.jrdma.ulp.iser.pdu.Reject;
import org.jrdma.ulp.iser.pdu.TargetSn;
import org.jrdma.ulp.iser.pdu.TextKeys;
import org.jrdma.ulp.iser.pdu.TextRequest;
import org.jrdma.ulp.iser.pdu.TextResponse;
import org.junit.jupiter.api.Test;

/** The discovery Text exchange against the iser_discovery capture, and the C/TTT pieces of a long answer. */
class SendTargetsTextTest {
    private static final DiscoveredTarget LIO = new DiscoveredTarget(LoginCaptures.TARGET,
            List.of("192.0.2.11:3260,1"));

    @Test
    void initiatorRequestIsOpenIscsis() throws Exception {
        IscsiPdu captured = pdu("iser_discovery", 8);
        TextRequest h = (TextRequest) captured.header();
        IscsiPdu ours = SendTargetsText.request(h.itt(), h.sn());
        assertEquals(captured.header(), ours.header());
        assertArrayEquals(captured.data(), ours.data());
    }

    @Test
    void targetAnswersAsLio() throws Exception {
        IscsiPdu lio = pdu("iser_discovery", 10);
        SendTargetsText.Responder r = new SendTargetsText.Responder(TestPolicy.lio(), LoginCaptures.INITIATOR,
                8192);
        IscsiPdu ours = r.onRequest(pdu("iser_discovery", 8), ((TextResponse) lio.header()).sn());
        assertEquals(lio.header(), ours.header());
        assertArrayEquals(lio.data(), ours.data());
    }

    @Test
    void initiatorParsesLiosAnswer() throws Exception {
        SendTargetsText.Collector c = new SendTargetsText.Collector();
        assertEquals(Optional.empty(), c.onResponse(pdu("iser_discovery", 10), new InitiatorSn(2, 0)));
        assertEquals(List.of(LIO), c.targets());
    }

    @Test
    void namedTargetOnly() throws Exception {
        TestPolicy policy = TestPolicy.lio();
        policy.sendTargets.add(new String[] {"TargetName", "iqn.2003-01.org.example:other"});
        policy.sendTargets.add(new String[] {"TargetAddress", "192.0.2.12:3260,2"});
        IscsiPdu req = new IscsiPdu(new TextRequest(false, true, false, 0, 5, Reject.RESERVED_TAG,
                new InitiatorSn(1, 1)), TextKeys.of("SendTargets", "iqn.2003-01.org.example:other").encode());
        IscsiPdu rsp = new SendTargetsText.Responder(policy, LoginCaptures.INITIATOR, 8192)
                .onRequest(req, new TargetSn(1, 2, 2));
        assertEquals(List.of(new DiscoveredTarget("iqn.2003-01.org.example:other", List.of("192.0.2.12:3260,2"))),
                SendTargetsText.parse(rsp.data()));
    }

    @Test
    void longAnswerGoesInPiecesWithATargetTransferTag() throws Exception {
        TestPolicy policy = new TestPolicy();
        List<DiscoveredTarget> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String name = "iqn.2003-01.org.linux-iscsi.rxepeer:lun-group-" + i;
            policy.sendTargets.add(new String[] {"TargetName", name});
            policy.sendTargets.add(new String[] {"TargetAddress", "192.0.2.11:3260,1"});
            policy.sendTargets.add(new String[] {"TargetAddress", "[2001:db8::11]:3260,1"});
            expected.add(new DiscoveredTarget(name, List.of("192.0.2.11:3260,1", "[2001:db8::11]:3260,1")));
        }
        SendTargetsText.Responder target = new SendTargetsText.Responder(policy, LoginCaptures.INITIATOR, 512);
        SendTargetsText.Collector initiator = new SendTargetsText.Collector();
        IscsiPdu req = SendTargetsText.request(9, new InitiatorSn(1, 1));
        int pieces = 0;
        while (true) {
            IscsiPdu rsp = target.onRequest(req, new TargetSn(pieces + 1, 2, 2));
            TextResponse h = (TextResponse) rsp.header();
            assertTrue(rsp.data().length <= 512);
            assertEquals(9, h.itt());
            pieces++;
            Optional<IscsiPdu> next = initiator.onResponse(rsp, new InitiatorSn(1, pieces + 1));
            if (next.isEmpty()) {
                assertTrue(h.fin() && !h.cont());
                assertEquals(Reject.RESERVED_TAG, h.ttt());
                break;
            }
            assertTrue(h.cont() && !h.fin());
            assertFalse(h.ttt() == Reject.RESERVED_TAG);
            assertEquals(h.ttt(), ((TextRequest) next.get().header()).ttt());
            assertEquals(0, next.get().data().length);
            req = next.get();
        }
        assertTrue(pieces > 1, "pieces: " + pieces);
        assertEquals(expected, initiator.targets());
    }

    @Test
    void otherKeysAreNotUnderstood() throws Exception {
        IscsiPdu req = new IscsiPdu(new TextRequest(false, true, false, 0, 5, Reject.RESERVED_TAG,
                new InitiatorSn(1, 1)), TextKeys.of("X-vendor.Thing", "1").encode());
        IscsiPdu rsp = new SendTargetsText.Responder(TestPolicy.lio(), LoginCaptures.INITIATOR, 8192)
                .onRequest(req, new TargetSn(1, 2, 2));
        assertEquals(TextKeys.of("X-vendor.Thing", "NotUnderstood"), TextKeys.decode(rsp.data()));
    }

    @Test
    void badInputIsAProtocolException() {
        assertThrows(IscsiProtocolException.class, () -> SendTargetsText.parse(
                "TargetAddress=192.0.2.11:3260,1\0".getBytes(StandardCharsets.US_ASCII)));
        assertThrows(IscsiProtocolException.class, () -> SendTargetsText.parse(
                "TargetName\0".getBytes(StandardCharsets.US_ASCII)));
        IscsiPdu huge = new IscsiPdu(new TextRequest(false, false, true, 0, 5, Reject.RESERVED_TAG,
                new InitiatorSn(1, 1)), new byte[40000]);
        SendTargetsText.Responder r = new SendTargetsText.Responder(TestPolicy.lio(), LoginCaptures.INITIATOR,
                8192);
        assertThrows(IscsiProtocolException.class, () -> {
            r.onRequest(huge, new TargetSn(1, 2, 2));
            r.onRequest(huge, new TargetSn(2, 2, 2));
        });
    }

    @Test
    void requestSplitOverContinuedPdusIsJoined() throws Exception {
        byte[] keys = TextKeys.of("SendTargets", "All").encode();
        SendTargetsText.Responder r = new SendTargetsText.Responder(TestPolicy.lio(), LoginCaptures.INITIATOR,
                8192);
        IscsiPdu part1 = new IscsiPdu(new TextRequest(false, false, true, 0, 5, Reject.RESERVED_TAG,
                new InitiatorSn(1, 1)), Arrays.copyOf(keys, 7));
        IscsiPdu empty = r.onRequest(part1, new TargetSn(1, 2, 2));
        TextResponse h = (TextResponse) empty.header();
        assertEquals(0, empty.data().length);
        assertTrue(!h.fin() && !h.cont() && h.ttt() != Reject.RESERVED_TAG);
        IscsiPdu part2 = new IscsiPdu(new TextRequest(false, true, false, 0, 5, h.ttt(), new InitiatorSn(1, 2)),
                Arrays.copyOfRange(keys, 7, keys.length));
        IscsiPdu answer = r.onRequest(part2, new TargetSn(2, 2, 2));
        assertEquals(List.of(LIO), SendTargetsText.parse(answer.data()));
        assertTrue(((TextResponse) answer.header()).fin());
    }
}
