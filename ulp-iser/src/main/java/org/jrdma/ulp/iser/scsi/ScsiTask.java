package org.jrdma.ulp.iser.scsi;

import java.nio.ByteBuffer;

/**
 * One SCSI command as the transport hands it to the target core ({@code struct se_cmd}).
 *
 * @param lun                        the 8-byte LUN field as on the wire (SAM-5 single-level: {@code lun << 48}
 *                                   for LUNs below 256, peripheral addressing)
 * @param cdb                        the CDB (16 bytes from the SCSI Command PDU; shorter CDBs are zero-padded)
 * @param expectedDataTransferLength the initiator's EDTL in bytes (0 for no data)
 * @param dataOut                    for a command with the W bit: the data-out bytes, position 0, limit = bytes
 *                                   transferred (may be less than EDTL); empty otherwise
 * @param dataIn                     for a command with the R bit: where the command puts its data-in, position
 *                                   0, capacity at least EDTL; the core writes from position 0 and sets
 *                                   {@link ScsiResult#dataInLength()}; null when EDTL is 0
 */
public record ScsiTask(long lun, byte[] cdb, int expectedDataTransferLength, ByteBuffer dataOut, ByteBuffer dataIn) {
}
