package org.jrdma.ib.core;

/** {@code struct ib_ah}: an address vector for UD sends. */
public interface AddressHandle extends VerbsObject {
    ProtectionDomain pd();

    AhAttr attr();

    void destroy();
}
