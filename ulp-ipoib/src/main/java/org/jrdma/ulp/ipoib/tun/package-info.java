/**
 * The host's IP stack on an IPoIB interface: a Linux TUN device (layer 3) bridged to it, optionally moved into a
 * network namespace ({@code ipoib attach}); private to the bundle.
 */
package org.jrdma.ulp.ipoib.tun;
