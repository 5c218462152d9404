package org.jrdma.ulp.iser.target;

import java.util.Optional;
import org.jrdma.ulp.iser.scsi.ScsiExecutor;

/**
 * One target portal group ({@code struct iscsi_portal_group}, targetcli's {@code /iscsi/IQN/tpgN}): its tag,
 * the initiators it admits (node ACLs or demo mode), their CHAP secrets, and the LUNs each sees.
 */
public interface PortalGroup {
    /** The target's IQN. */
    String targetName();

    /** TargetPortalGroupTag (targetcli's N of tpgN). */
    int tag();

    /** Whether {@code initiatorName} may log in (a node ACL, or generate_node_acls=1: demo mode). */
    boolean allows(String initiatorName);

    /**
     * CHAP secrets {userid, password, mutualUserid, mutualPassword} (mutual ones null) when authentication is on
     * for {@code initiatorName}, or empty: AuthMethod=None.
     */
    Optional<String[]> chap(String initiatorName);

    /** Whether the LUNs are read-only for {@code initiatorName} (demo_mode_write_protect or a read-only map). */
    boolean writeProtected(String initiatorName);

    /** The LUNs {@code initiatorName} sees (mapped LUNs, or all TPG LUNs in demo mode), a snapshot. */
    ScsiExecutor luns(String initiatorName);
}
