package org.jrdma.ulp.iser.target;

import java.util.Optional;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;

/** One target portal group ({@code tpg1}) as the runtime sees it at login. */
public interface PortalGroup {
    String targetName();

    /** The TargetPortalGroupTag sent in the login response. */
    int tag();

    /**
     * Whether {@code initiatorName} may log in: it has a node ACL, or the TPG runs in demo mode
     * ({@code generate_node_acls=1}). Refused: login status 0x0202 (authorization failure).
     */
    boolean allows(String initiatorName);

    /**
     * The CHAP credentials this initiator must answer (AuthMethod=CHAP), or empty when the TPG does not
     * authenticate ({@code authentication=0}: AuthMethod=None).
     */
    Optional<ChapCredentials> chap(String initiatorName);

    /** The LUNs the initiator sees (its mapped LUNs, or all TPG LUNs in demo mode). */
    ScsiExecutor luns(String initiatorName);

    /** Writes refused with DATA PROTECT / WRITE PROTECTED ({@code demo_mode_write_protect=1} or a read-only LUN). */
    boolean writeProtected(String initiatorName);

    /**
     * CHAP secrets (RFC 7143 section 12.1.3): the target checks the initiator's response with
     * {@code userid}/{@code password}; with mutual CHAP it answers the initiator's challenge as
     * {@code mutualUserid}/{@code mutualPassword} (both null without mutual CHAP).
     */
    record ChapCredentials(String userid, String password, String mutualUserid, String mutualPassword) {
        public boolean mutual() {
            return mutualUserid != null;
        }
    }
}
