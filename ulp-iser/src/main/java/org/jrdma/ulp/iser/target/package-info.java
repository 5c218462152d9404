/**
 * The iSER target (LIO {@code iscsi_target_mod} + {@code ib_isert}): the configuration contracts
 * ({@link org.jrdma.ulp.iser.target.TargetDirectory}, {@link org.jrdma.ulp.iser.target.PortalGroup},
 * {@link org.jrdma.ulp.iser.target.PortalControl}) and the runtime that serves sessions on enabled portals.
 * Private to the bundle.
 */
package org.jrdma.ulp.iser.target;
