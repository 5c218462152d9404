/** The container's logging: the Log Service listener, the rolling file, the System.Logger bridge. */
package org.jrdma.log.impl;
