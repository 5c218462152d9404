/**
 * The MAD layer, the SA client and the subnet manager outside OSGi ({@link
 * org.jrdma.ib.mad.standalone.MadStack}): what ib-mad's DS components give the container, for a plain JUnit
 * test or an embedded use that owns its {@code IbCore}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.mad.standalone;
