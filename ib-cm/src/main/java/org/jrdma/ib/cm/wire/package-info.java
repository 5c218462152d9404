/** IB CM message formats ({@code cm_msgs.h}) and the rdma_cm private-data header, encode and decode. Private to the bundle. */
package org.jrdma.ib.cm.wire;
