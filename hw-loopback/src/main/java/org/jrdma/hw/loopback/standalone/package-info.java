/**
 * hw-loopback outside OSGi: {@link org.jrdma.hw.loopback.standalone.LoopbackFabric#open} gives a fabric of
 * its own whose devices register with an {@code IbCore} the caller owns (a plain JUnit test, an embedded
 * use). In the container the driver's DS component makes the devices from configurations instead.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.hw.loopback.standalone;
