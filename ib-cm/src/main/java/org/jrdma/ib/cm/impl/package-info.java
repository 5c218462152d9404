/** The IB CM and RDMA CM implementation. Private to the bundle. */
package org.jrdma.ib.cm.impl;
