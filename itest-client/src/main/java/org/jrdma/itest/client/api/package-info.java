/** What the itest client bundle tells the integration test about the callbacks it received. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.itest.client.api;
