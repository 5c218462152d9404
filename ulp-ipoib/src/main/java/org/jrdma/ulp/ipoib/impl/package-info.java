/** The IPoIB datagram-mode engine and its wire codecs; private to the bundle. */
package org.jrdma.ulp.ipoib.impl;
