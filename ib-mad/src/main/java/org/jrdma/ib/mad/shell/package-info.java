/** The Gogo commands of ib-mad (scope {@code rdma}): ibstat, sminfo, saquery. Private to the bundle. */
package org.jrdma.ib.mad.shell;
