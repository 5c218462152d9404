/** The Gogo commands of perftest (scope {@code rdma}). Private to the bundle. */
package org.jrdma.perftest.shell;
