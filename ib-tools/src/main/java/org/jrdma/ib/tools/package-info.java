/**
 * rdma-core's pingpong example tools ({@code ibv_rc_pingpong}, {@code ibv_uc_pingpong},
 * {@code ibv_ud_pingpong}, {@code ibv_srq_pingpong}) on the ib-core verbs API: plain classes, usable
 * and tested without OSGi ({@link org.jrdma.ib.tools.PingpongTool#run}). Private to the bundle.
 */
package org.jrdma.ib.tools;
