/**
 * The iSCSI PDU codecs (RFC 7143, Linux {@code include/scsi/iscsi_proto.h}) and the iSER header and Hello
 * messages (RFC 7145, Linux {@code include/scsi/iser.h}): the 48-byte Basic Header Segment with one record per
 * PDU kind, AHS, the data segment and its padding, text keys. Private to the bundle: the target and the
 * initiator of this bundle use them; the initiator's API ({@code IserSession}) speaks LUNs, LBAs and buffers.
 */
package org.jrdma.ulp.iser.pdu;
