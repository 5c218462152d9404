/** The Gogo commands of ib-cm (scope {@code rdma}): rping. Private to the bundle. */
package org.jrdma.ib.cm.shell;
