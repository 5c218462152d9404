/** What the itest driver bundle tells the integration test about its fake devices. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.itest.driver.api;
