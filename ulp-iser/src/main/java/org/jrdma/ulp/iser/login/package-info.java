/**
 * The iSCSI login phase (RFC 7143 section 6, 13; RFC 7145 section 6 for the iSER keys): text key negotiation,
 * the security (CHAP) and operational stages, both the target's and the initiator's side, and the discovery
 * session's SendTargets exchange. Works on PDU records; knows nothing of the transport. Private to the bundle.
 */
package org.jrdma.ulp.iser.login;
