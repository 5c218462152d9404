/**
 * The SA client ({@code core/sa_query.c}, {@code core/multicast.c}): path record queries and multicast
 * joins against the subnet administrator of a port's subnet, with the records in IBTA layout
 * ({@link PathRecord}, {@link NodeRecord}, {@link MCMemberRecord}; field names as Linux's
 * {@code sa_path_rec}, {@code ib_sa_mcmember_rec}) and their component masks.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.jrdma.ib.mad.sa;
