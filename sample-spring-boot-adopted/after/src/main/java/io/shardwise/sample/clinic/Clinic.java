package io.shardwise.sample.clinic;

import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** What the pages of the clinic do, one transaction each. */
@Service
public class Clinic {
  static final int PAGE_SIZE = 5;

  private final OwnerRepository owners;
  private final PetKindRepository kinds;
  private final VetRepository vets;

  public Clinic(OwnerRepository owners, PetKindRepository kinds, VetRepository vets) {
    this.owners = owners;
    this.kinds = kinds;
    this.vets = vets;
  }

  @Transactional(readOnly = true)
  public Page<Owner> findOwners(String lastNamePrefix, int page) {
    return owners.findByLastNameStartingWith(lastNamePrefix,
        PageRequest.of(page, PAGE_SIZE, Sort.by("lastName", "firstName")));
  }

  @Transactional(readOnly = true)
  public Owner owner(int ownerId) {
    return owners.findById(ownerId).orElseThrow(() -> new NotFoundException("No owner " + ownerId));
  }

  @Transactional
  public Owner register(Owner owner) {
    return owners.save(owner);
  }

  /** Saves an owner as a form changed it: its fields, and pets and visits added to its lists. */
  @Transactional
  public Owner save(Owner owner) {
    return owners.save(owner);
  }

  @Transactional(readOnly = true)
  public List<PetKind> kinds() {
    return kinds.findAllByOrderByName();
  }

  @Transactional(readOnly = true)
  public List<Vet> vets() {
    return vets.findAllByOrderByLastName();
  }
}
