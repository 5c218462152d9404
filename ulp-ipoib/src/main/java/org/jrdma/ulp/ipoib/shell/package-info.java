/** The Gogo command {@code ip} (iproute2's shape) over the IPoIB interfaces; private to the bundle. */
package org.jrdma.ulp.ipoib.shell;
