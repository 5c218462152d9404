/**
 * linux-rdma perftest 4.5's tools ({@code ib_write_bw}, {@code ib_write_lat}, {@code ib_read_bw},
 * {@code ib_read_lat}, {@code ib_send_bw}, {@code ib_send_lat}, {@code ib_atomic_bw},
 * {@code ib_atomic_lat}) on the ib-core verbs API: plain classes, usable and tested without OSGi
 * ({@link org.jrdma.perftest.Perftest#run}). Private to the bundle.
 */
package org.jrdma.perftest;
