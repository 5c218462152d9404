package org.jrdma.ulp.iser.target;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * One session as {@code targetcli sessions} / an {@code iscsi sessions} listing shows it (LIO's
 * {@code /sys/kernel/config/target/iscsi/.../sessions}).
 *
 * @param initiatorName    the InitiatorName of the login
 * @param targetName       the target (null for a discovery session)
 * @param discovery        SessionType=Discovery
 * @param tsih             the target's session handle
 * @param isid             the initiator's 6-byte session id (low 48 bits)
 * @param remoteAddresses  each connection's initiator address
 * @param commands         SCSI commands executed
 * @param bytesRead        data-in bytes sent to the initiator (its READs)
 * @param bytesWritten     data-out bytes taken from the initiator (its WRITEs)
 */
public record SessionInfo(String initiatorName, String targetName, boolean discovery, int tsih, long isid,
        List<InetSocketAddress> remoteAddresses, long commands, long bytesRead, long bytesWritten) {
    public SessionInfo {
        remoteAddresses = List.copyOf(remoteAddresses);
    }

    /** The ISID as open-iscsi and LIO print it: 12 hex digits. */
    public String isidHex() {
        return String.format("%012x", isid);
    }
}
