/** The Gogo commands of ib-tools (scope {@code rdma}). Private to the bundle. */
package org.jrdma.ib.tools.shell;
