/**
 * The iSER initiator for JVM users (what open-iscsi + Linux {@code ib_iser} give a Linux host): discover the
 * targets of a portal ({@code iscsiadm -m discovery -t st}), log in ({@code iscsiadm -m node --login}), and
 * read and write the LUNs of a session by LBA with asynchronous calls, copying through the session's registered
 * buffers or, with an {@link org.jrdma.ulp.iser.IserIoBuffer}, straight to and from registered memory. Only JDK types: the PDUs and the
 * transport stay private to the bundle.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package org.jrdma.ulp.iser;
