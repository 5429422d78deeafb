package io.shardwise.sample.clinic;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

@Entity
@Table(name = "owners")
public class Owner extends BaseEntity {
  @Column(name = "first_name")
  private String firstName;

  @Column(name = "last_name")
  private String lastName;

  private String city;

  private String telephone;

  @OneToMany(cascade = CascadeType.ALL, fetch = FetchType.EAGER)
  @JoinColumn(name = "owner_id", insertable = false, updatable = false)
  @OrderBy("name")
  private List<Pet> pets = new ArrayList<>();

  @ShardKey
  @Override
  public Integer getId() {
    return super.getId();
  }

  public String getFirstName() {
    return firstName;
  }

  public void setFirstName(String firstName) {
    this.firstName = firstName;
  }

  public String getLastName() {
    return lastName;
  }

  public void setLastName(String lastName) {
    this.lastName = lastName;
  }

  public String getCity() {
    return city;
  }

  public void setCity(String city) {
    this.city = city;
  }

  public String getTelephone() {
    return telephone;
  }

  public void setTelephone(String telephone) {
    this.telephone = telephone;
  }

  public List<Pet> getPets() {
    return pets;
  }

  public void addPet(Pet pet) {
    pets.add(pet);
  }

  public Pet getPet(Integer petId) {
    return pets.stream().filter(p -> petId.equals(p.getId())).findFirst()
        .orElseThrow(() -> new NotFoundException("Owner " + getId() + " has no pet " + petId));
  }

  public String getName() {
    return firstName + " " + lastName;
  }
}
