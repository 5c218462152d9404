package org.jrdma.ulp.ipoib;

import java.net.InetAddress;

/**
 * An entry of the interface's ARP table (IPv4) or Neighbor Discovery table (IPv6) ({@code ip neigh}): the address, the 20-byte IPoIB hardware address once
 * resolved (null while INCOMPLETE), the NUD state, and the path to it when the SA gave one (DLID 0 before).
 */
public record Neighbour(InetAddress address, byte[] lladdr, State state, int dlid, int sl) {
    /** Linux's NUD states that this table uses. */
    public enum State { INCOMPLETE, REACHABLE, FAILED }
}
