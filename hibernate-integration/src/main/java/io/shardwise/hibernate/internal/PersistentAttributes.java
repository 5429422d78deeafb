package io.shardwise.hibernate.internal;

import org.hibernate.persister.entity.EntityPersister;

/** Where an attribute sits in the state arrays Hibernate hands to event listeners. */
public final class PersistentAttributes {
  private PersistentAttributes() {}

  /** The index of {@code attribute} in {@code persister}'s property arrays (event states). */
  public static int indexOf(EntityPersister persister, String attribute) {
    String[] names = persister.getPropertyNames();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(attribute)) {
        return i;
      }
    }
    throw new IllegalStateException(persister.getEntityName() + " has no persistent attribute " + attribute);
  }
}
