package org.jrdma.ulp.iser.login;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jrdma.ulp.iser.pdu.LoginStage;

/**
 * The login and text keys as data (RFC 7143 section 13, RFC 7145 section 6, RFC 7143 section 12.1.3 for CHAP):
 * per key its result rule, scope, the stage it may be sent in, who may send it, leading-only, the RFC default,
 * the admissible numeric range, and when it is Irrelevant. Keys not in the table (X- vendor keys included) are
 * answered NotUnderstood (RFC 7143 section 6.2). Obsolete RFC 3720 marker keys that open-iscsi still
 * offers (IFMarker, OFMarker) are rows too: LIO answers them No, so do we.
 */
enum LoginKey {
    AUTH_METHOD("AuthMethod", KeyRule.LIST, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, "None", 0, 0,
            Irrelevant.NEVER),
    HEADER_DIGEST("HeaderDigest", KeyRule.LIST, Scope.CONNECTION, Stage.OPERATIONAL, Sender.BOTH, false, "None",
            0, 0, Irrelevant.NEVER),
    DATA_DIGEST("DataDigest", KeyRule.LIST, Scope.CONNECTION, Stage.OPERATIONAL, Sender.BOTH, false, "None", 0, 0,
            Irrelevant.NEVER),
    MAX_CONNECTIONS("MaxConnections", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "1", 1,
            65535, Irrelevant.DISCOVERY),
    SEND_TARGETS("SendTargets", KeyRule.DECLARATIVE, Scope.SESSION, Stage.FULL_FEATURE, Sender.INITIATOR, false,
            null, 0, 0, Irrelevant.NEVER),
    TARGET_NAME("TargetName", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.BOTH, true, null, 0, 0,
            Irrelevant.NEVER),
    INITIATOR_NAME("InitiatorName", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.INITIATOR, true, null,
            0, 0, Irrelevant.NEVER),
    TARGET_ALIAS("TargetAlias", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.TARGET, false, null, 0, 0,
            Irrelevant.NEVER),
    INITIATOR_ALIAS("InitiatorAlias", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.INITIATOR, false,
            null, 0, 0, Irrelevant.NEVER),
    TARGET_ADDRESS("TargetAddress", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.TARGET, false, null, 0,
            0, Irrelevant.NEVER),
    TARGET_PORTAL_GROUP_TAG("TargetPortalGroupTag", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.TARGET,
            false, null, 0, 65535, Irrelevant.NEVER),
    INITIAL_R2T("InitialR2T", KeyRule.OR, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "Yes", 0, 0,
            Irrelevant.DISCOVERY),
    IMMEDIATE_DATA("ImmediateData", KeyRule.AND, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "Yes", 0, 0,
            Irrelevant.DISCOVERY),
    MAX_RECV_DATA_SEGMENT_LENGTH("MaxRecvDataSegmentLength", KeyRule.DECLARATIVE, Scope.CONNECTION,
            Stage.OPERATIONAL, Sender.BOTH, false, "8192", 512, 16777215, Irrelevant.RDMA),
    MAX_BURST_LENGTH("MaxBurstLength", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "262144",
            512, 16777215, Irrelevant.DISCOVERY),
    FIRST_BURST_LENGTH("FirstBurstLength", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true,
            "65536", 512, 16777215, Irrelevant.DISCOVERY),
    DEFAULT_TIME2WAIT("DefaultTime2Wait", KeyRule.MAX, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "2", 0,
            3600, Irrelevant.NEVER),
    DEFAULT_TIME2RETAIN("DefaultTime2Retain", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true,
            "20", 0, 3600, Irrelevant.NEVER),
    MAX_OUTSTANDING_R2T("MaxOutstandingR2T", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "1",
            1, 65535, Irrelevant.DISCOVERY),
    DATA_PDU_IN_ORDER("DataPDUInOrder", KeyRule.OR, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "Yes", 0,
            0, Irrelevant.DISCOVERY),
    DATA_SEQUENCE_IN_ORDER("DataSequenceInOrder", KeyRule.OR, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true,
            "Yes", 0, 0, Irrelevant.DISCOVERY),
    ERROR_RECOVERY_LEVEL("ErrorRecoveryLevel", KeyRule.MIN, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true,
            "0", 0, 2, Irrelevant.NEVER),
    SESSION_TYPE("SessionType", KeyRule.DECLARATIVE, Scope.SESSION, Stage.ANY, Sender.INITIATOR, true, "Normal",
            0, 0, Irrelevant.NEVER),
    IF_MARKER("IFMarker", KeyRule.AND, Scope.CONNECTION, Stage.OPERATIONAL, Sender.BOTH, false, "No", 0, 0,
            Irrelevant.NEVER),
    OF_MARKER("OFMarker", KeyRule.AND, Scope.CONNECTION, Stage.OPERATIONAL, Sender.BOTH, false, "No", 0, 0,
            Irrelevant.NEVER),
    RDMA_EXTENSIONS("RDMAExtensions", KeyRule.AND, Scope.SESSION, Stage.OPERATIONAL, Sender.BOTH, true, "No", 0, 0,
            Irrelevant.DISCOVERY),
    // RFC 7145 6.4/6.5 calls these declarations; LIO (and so the captures) settles them as a minimum of the two
    // sides' values and echoes both, which gives the same result when each side only lowers the other's value.
    INITIATOR_RECV_DATA_SEGMENT_LENGTH("InitiatorRecvDataSegmentLength", KeyRule.MIN, Scope.CONNECTION,
            Stage.OPERATIONAL, Sender.BOTH, false, "8192", 512, 16777215, Irrelevant.NOT_RDMA),
    TARGET_RECV_DATA_SEGMENT_LENGTH("TargetRecvDataSegmentLength", KeyRule.MIN, Scope.CONNECTION,
            Stage.OPERATIONAL, Sender.BOTH, false, "8192", 512, 16777215, Irrelevant.NOT_RDMA),
    // RFC 7145 6.6 has each side declare its own limit; settled as the smaller non-zero limit and echoed, which
    // an RFC peer reads as our declaration (a limit no larger than its own, so still safe for both directions)
    MAX_OUTSTANDING_UNEXPECTED_PDUS("MaxOutstandingUnexpectedPDUs", KeyRule.MIN_ZERO_UNLIMITED, Scope.SESSION,
            Stage.OPERATIONAL, Sender.BOTH, true, "0", 0, 0xffffffffL, Irrelevant.NOT_RDMA),
    CHAP_A("CHAP_A", KeyRule.CHAP, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, null, 0, 0,
            Irrelevant.NEVER),
    CHAP_I("CHAP_I", KeyRule.CHAP, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, null, 0, 255,
            Irrelevant.NEVER),
    CHAP_C("CHAP_C", KeyRule.CHAP, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, null, 0, 0,
            Irrelevant.NEVER),
    CHAP_N("CHAP_N", KeyRule.CHAP, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, null, 0, 0,
            Irrelevant.NEVER),
    CHAP_R("CHAP_R", KeyRule.CHAP, Scope.CONNECTION, Stage.SECURITY, Sender.BOTH, false, null, 0, 0,
            Irrelevant.NEVER);

    /** RFC 7143 section 6.1: a value is at most 255 bytes unless its key says otherwise. */
    static final int MAX_VALUE = 255;
    /** iSCSI names are at most 223 bytes (RFC 7143 section 4.2.7.1). */
    static final int MAX_NAME = 223;
    /** CHAP_C/CHAP_R: a 1024-byte binary value in hex, 0x prefix included (RFC 7143 section 12.1.3). */
    static final int MAX_CHAP_BINARY = 2 + 2 * 1024;

    /** Whether the key is scoped to the session or to one connection. */
    enum Scope { SESSION, CONNECTION }

    /** The login stage a key may be sent in (FULL_FEATURE: in Text PDUs only). */
    enum Stage { SECURITY, OPERATIONAL, ANY, FULL_FEATURE }

    /** Who may send the key. */
    enum Sender { INITIATOR, TARGET, BOTH }

    /** When an acceptor answers the key with Irrelevant instead of a value. */
    enum Irrelevant { NEVER, DISCOVERY, RDMA, NOT_RDMA }

    private static final Map<String, LoginKey> BY_NAME = Arrays.stream(values())
            .collect(Collectors.toMap(LoginKey::key, Function.identity()));

    private final String key;
    private final KeyRule rule;
    private final Scope scope;
    private final Stage stage;
    private final Sender sender;
    private final boolean leadingOnly;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final Irrelevant irrelevant;

    LoginKey(String key, KeyRule rule, Scope scope, Stage stage, Sender sender, boolean leadingOnly,
            String defaultValue, long min, long max, Irrelevant irrelevant) {
        this.key = key;
        this.rule = rule;
        this.scope = scope;
        this.stage = stage;
        this.sender = sender;
        this.leadingOnly = leadingOnly;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.irrelevant = irrelevant;
    }

    static Optional<LoginKey> of(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    String key() {
        return key;
    }

    KeyRule rule() {
        return rule;
    }

    Scope scope() {
        return scope;
    }

    Stage stage() {
        return stage;
    }

    Sender sender() {
        return sender;
    }

    boolean leadingOnly() {
        return leadingOnly;
    }

    /** The RFC default, or null for keys without one (names, CHAP). */
    String defaultValue() {
        return defaultValue;
    }

    long min() {
        return min;
    }

    long max() {
        return max;
    }

    Irrelevant irrelevant() {
        return irrelevant;
    }

    boolean numeric() {
        return rule == KeyRule.MIN || rule == KeyRule.MAX || rule == KeyRule.MIN_ZERO_UNLIMITED || max > 0;
    }

    boolean bool() {
        return rule == KeyRule.AND || rule == KeyRule.OR;
    }

    /** The longest value the key takes. */
    int maxValueLength() {
        return switch (this) {
            case CHAP_C, CHAP_R -> MAX_CHAP_BINARY;
            case TARGET_NAME, INITIATOR_NAME, CHAP_N -> MAX_NAME;
            default -> MAX_VALUE;
        };
    }

    /** Whether the key may appear in a login PDU of {@code csg}. */
    boolean allowedIn(LoginStage csg) {
        return switch (stage) {
            case ANY -> true;
            case SECURITY -> csg == LoginStage.SECURITY_NEGOTIATION;
            case OPERATIONAL -> csg == LoginStage.LOGIN_OPERATIONAL_NEGOTIATION;
            case FULL_FEATURE -> false;
        };
    }

    /** Whether {@code from} may send the key. */
    boolean sentBy(Sender from) {
        return sender == Sender.BOTH || sender == from;
    }

    /** Whether the key does not apply to this session (answered Irrelevant). */
    boolean irrelevantFor(boolean discovery, boolean rdma) {
        return switch (irrelevant) {
            case NEVER -> false;
            case DISCOVERY -> discovery;
            case RDMA -> rdma;
            case NOT_RDMA -> !rdma;
        };
    }
}
